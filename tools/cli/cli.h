/* The clmax command-line tool: commands, usage text and option parsing shared between them. */
#ifndef CLMAX_CLI_H
#define CLMAX_CLI_H

#include <stdint.h>
#include <stdio.h>

/* Exit statuses. A refusal that the command line alone shows (an unknown option, a bad value, an
 * attribute the chosen opset does not have) is bad usage; one that needs the input is a refusal. */
enum { CLI_EXIT_OK = 0, CLI_EXIT_REFUSED = 1, CLI_EXIT_USAGE = 2 };

typedef enum cli_op { CLI_ARGMAX, CLI_ARGMIN, CLI_HARDMAX } cli_op;

/* `clmax argmax|argmin|hardmax ...`: argv holds the arguments after the command name. */
int cli_run_op(cli_op op, int argc, char **argv);

/* `clmax devices ...`: argv holds the arguments after the command name. */
int cli_devices(int argc, char **argv);

/* `clmax prebuild ...`: argv holds the arguments after the command name. */
int cli_prebuild(int argc, char **argv);

/* Print the usage of command ("argmax", "argmin", "hardmax", "devices", "prebuild"), or of the
 * whole tool for NULL. */
void cli_usage(FILE *f, const char *command);

/* Report bad usage of command on stderr (printf-style), with a pointer to its --help. Returns
 * CLI_EXIT_USAGE. */
int cli_usage_error(const char *command, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Valued options are accepted as "--name=VALUE" and as "--name VALUE". If argv[*i] is the option
 * name, stores its value in *value (advancing *i past a separate value) and returns 1; returns 0
 * for another argument, and -1 when the value is missing. */
int cli_option(int argc, char **argv, int *i, const char *name, const char **value);

/* Parse a whole decimal integer; returns 0 on success, -1 on anything else (empty, junk, range). */
int cli_parse_int64(const char *s, int64_t *value);

#endif /* CLMAX_CLI_H */
