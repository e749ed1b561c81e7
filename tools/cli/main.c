/* clmax: the command-line tool. Dispatches to a command. */
#include "cli.h"

#include <string.h>

#include "clmax.h"

int main(int argc, char **argv)
{
    const char *cmd;

    if (argc < 2) {
        cli_usage(stderr, NULL);
        return CLI_EXIT_USAGE;
    }
    cmd = argv[1];
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0 || strcmp(cmd, "version") == 0) {
        printf("clmax %s\n", clmax_version_string());
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        if (argc > 2 && strcmp(cmd, "help") == 0) {
            if (strcmp(argv[2], "argmax") != 0 && strcmp(argv[2], "argmin") != 0 &&
                strcmp(argv[2], "hardmax") != 0 && strcmp(argv[2], "devices") != 0 &&
                strcmp(argv[2], "prebuild") != 0)
                return cli_usage_error(NULL, "unknown command '%s'", argv[2]);
            cli_usage(stdout, argv[2]);
            return CLI_EXIT_OK;
        }
        cli_usage(stdout, NULL);
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "argmax") == 0) return cli_run_op(CLI_ARGMAX, argc - 2, argv + 2);
    if (strcmp(cmd, "argmin") == 0) return cli_run_op(CLI_ARGMIN, argc - 2, argv + 2);
    if (strcmp(cmd, "hardmax") == 0) return cli_run_op(CLI_HARDMAX, argc - 2, argv + 2);
    if (strcmp(cmd, "devices") == 0) return cli_devices(argc - 2, argv + 2);
    if (strcmp(cmd, "prebuild") == 0) return cli_prebuild(argc - 2, argv + 2);
    if (cmd[0] == '-') return cli_usage_error(NULL, "unknown option '%s'", cmd);
    return cli_usage_error(NULL, "unknown command '%s'", cmd);
}
