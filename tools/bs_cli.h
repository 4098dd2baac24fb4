/* bs_cli.h: the commands of the bitslice tool. Each returns the process exit status. */
#ifndef BS_CLI_H
#define BS_CLI_H

int bscli_cmd_seal(int argc, char **argv);
int bscli_cmd_open(int argc, char **argv);
int bscli_cmd_bench(int argc, char **argv);

#endif
