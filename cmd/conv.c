/* Placeholder until this command lands; replaced by its own issue's work. */
#include "cmd.h"

int cmd_conv(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	cmd_error("not available in this build yet");
	return EXIT_USAGE;
}
