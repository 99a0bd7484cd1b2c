/*
 * trigger.c - PROFEV_TRIGGER: the program asks pfrec --ring for a
 * snapshot. The moment and the reason cross as a TRIGGER message, queued
 * with the definitions (never in the on-demand log), and the flush thread
 * is woken so that pfrec learns of it within a pass, not a period.
 */
#include <string.h>
#include "client.h"

void profev__trigger(const char *reason)
{
	if (!ATOMIC_LOAD(&cl.active) || in_client)
		return;
	struct pfw_trigger t;
	memset(&t, 0, sizeof t);
	t.tick = client_ticks();
	if (!reason)
		reason = "";
	t.reason_len = (uint32_t)strnlen(reason, PFW_MAX_REASON);
	defs_send(PFW_TRIGGER, client_gettid(), &t, sizeof t, reason, t.reason_len);
	flush_kick();
}
