/* Option parsing helpers shared by the commands. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int cli_option(int argc, char **argv, int *i, const char *name, const char **value)
{
    const char *arg = argv[*i];
    size_t len = strlen(name);

    if (strncmp(arg, name, len) != 0) return 0;
    if (arg[len] == '=') {
        *value = arg + len + 1;
        return 1;
    }
    if (arg[len] != '\0') return 0;
    if (*i + 1 >= argc) return -1;
    *i += 1;
    *value = argv[*i];
    return 1;
}

int cli_parse_int64(const char *s, int64_t *value)
{
    char *end = NULL;
    long long v;

    if (s == NULL || !(s[0] == '-' || s[0] == '+' || (s[0] >= '0' && s[0] <= '9'))) return -1;
    errno = 0;
    v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0') return -1;
    *value = (int64_t)v;
    return 0;
}

int cli_usage_error(const char *command, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "clmax%s%s: ", command ? " " : "", command ? command : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'clmax%s%s --help'.\n", command ? " " : "", command ? command : "");
    return CLI_EXIT_USAGE;
}
