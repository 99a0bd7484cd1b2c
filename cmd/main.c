/* The profev multi-call binary: dispatches on the name it was run as
 * (pfdump, pfrec, ...) or on its first argument (profev dump ...). */
#include <stdio.h>
#include <string.h>
#include "cmd.h"

const char *cmd_name = "profev";

struct command {
	const char *name;      /* profev NAME */
	const char *alias;     /* the link name */
	int (*run)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "rec",  "pfrec",  cmd_rec,  "run a program and record its trace" },
	{ "dump", "pfdump", cmd_dump, "show or summarize a trace" },
	{ "sym",  "pfsym",  cmd_sym,  "symbolize a trace's callstacks offline" },
	{ "conv", "pfconv", cmd_conv, "convert a trace for Perfetto, Chrome or flame graphs" },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *out)
{
	fprintf(out, "usage: profev COMMAND [ARGS...]\n"
		     "       pfrec|pfdump|pfsym|pfconv [ARGS...]\n\ncommands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-6s (%s)  %s\n", commands[i].name, commands[i].alias,
			commands[i].summary);
	fprintf(out, "\nrun 'profev COMMAND --help' for a command's options\n");
}

int main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];

	for (size_t i = 0; i < NCOMMANDS; i++) {
		if (strcmp(base, commands[i].alias) == 0) {
			cmd_name = commands[i].alias;
			return commands[i].run(argc, argv);
		}
	}
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	if (!strcmp(argv[1], "--version")) {
		cmd_print_version();
		return EXIT_OK;
	}
	for (size_t i = 0; i < NCOMMANDS; i++) {
		if (strcmp(argv[1], commands[i].name) == 0 || strcmp(argv[1], commands[i].alias) == 0) {
			cmd_name = commands[i].alias;
			return commands[i].run(argc - 1, argv + 1);
		}
	}
	fprintf(stderr, "profev: '%s' is not a profev command; see 'profev --help'\n", argv[1]);
	return EXIT_USAGE;
}
