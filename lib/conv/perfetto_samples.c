/* The Perfetto target's samples and context switches (pfrec --sample, --sched). */
#include "conv/perfetto_packets.h"

/* ---- samples and context switches (pfrec --sample, --sched) ---- */

/* Field numbers of profiling/profile_packet.proto and ftrace/. */
enum {
	TP_FTRACE_EVENTS = 1,
	TP_PERF_SAMPLE = 66,
	PS_CPU = 1,
	PS_PID = 2,
	PS_TID = 3,
	PS_CALLSTACK_IID = 4,
	PS_CPU_MODE = 5,
	PS_KERNEL_RECORDS_LOST = 17,
	MODE_USER = 2,
	FB_CPU = 1,
	FB_EVENT = 2,
	FE_TIMESTAMP = 1,
	FE_PID = 2,
	FE_SCHED_SWITCH = 4,
	SS_PREV_COMM = 1,
	SS_PREV_PID = 2,
	SS_PREV_PRIO = 3,
	SS_PREV_STATE = 4,
	SS_NEXT_COMM = 5,
	SS_NEXT_PID = 6,
	SS_NEXT_PRIO = 7,
	TASK_RUNNING = 0,       /* prev_state of a preempted thread: Runnable */
	TASK_INTERRUPTIBLE = 1, /* of a blocked one: Sleeping */
	PRIO_NORMAL = 120,
};

/*
 * A sample as a PerfSample packet, which trace_processor loads into its
 * perf_sample table with the callstack interned as for zones: the UI
 * draws it per thread and as a flame graph over a selected range.
 */
int perfetto_sample(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	struct perfetto *p = c->fmt;
	struct outbuf *o = &c->out;
	size_t need = PACKET_MAX;
	perfetto_use_shared(p);
	int has = perfetto_stack_prepare(c, ev->stack, &need);
	if (has < 0)
		return has;
	int rc = outbuf_reserve(o, need);
	if (rc)
		return rc;
	size_t pk = perfetto_packet_begin(c, ev->ts, has ? SEQ_NEEDS_INCREMENTAL_STATE : 0);
	if (p->stack) {
		size_t id = pb_begin(o, TP_INTERNED_DATA);
		perfetto_stack_write(c);
		pb_end(o, id);
	}
	size_t ps = pb_begin(o, TP_PERF_SAMPLE);
	pb_uint(o, PS_CPU, (uint32_t)ev->payload);
	pb_uint(o, PS_PID, t->pid);
	pb_uint(o, PS_TID, t->tid);
	if (has)
		pb_uint(o, PS_CALLSTACK_IID, ev->stack);
	pb_uint(o, PS_CPU_MODE, MODE_USER);
	pb_end(o, ps);
	pb_end(o, pk);
	return 0;
}

/*
 * Records the kernel dropped from a ring, as traced_perf reports them: a
 * PerfSample with kernel_records_lost and pid 0, which trace_processor
 * counts in its perf_cpu_lost_records stat (the UI's data-loss notice).
 * pfrec's loss events carry no CPU, so they are counted under CPU 0.
 */
int perfetto_sample_lost(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	(void)t;
	struct outbuf *o = &c->out;
	int rc = outbuf_reserve(o, PACKET_MAX);
	if (rc)
		return rc;
	perfetto_use_shared(c->fmt);
	size_t pk = perfetto_packet_begin(c, ev->ts, 0);
	size_t ps = pb_begin(o, TP_PERF_SAMPLE);
	pb_uint(o, PS_CPU, 0);
	pb_uint(o, PS_KERNEL_RECORDS_LOST, ev->payload);
	pb_end(o, ps);
	pb_end(o, pk);
	return 0;
}

/*
 * A switch as the kernel's sched_switch tracepoint would have it, with
 * pid 0 (the idle task) standing for whatever else ran on the CPU: the
 * program's threads get slices on the CPU tracks and their thread_state
 * (Running, then Runnable when preempted or Sleeping when blocked).
 */
int perfetto_sched(struct conv *c, struct conv_thread *t, const struct profev_event *ev)
{
	struct outbuf *o = &c->out;
	size_t len = strlen(t->name);
	int rc = outbuf_reserve(o, PACKET_MAX + 3 * len);
	if (rc)
		return rc;
	int out = ev->type == PROFEV_EV_SWITCH_OUT;
	size_t pk = pb_begin(o, TRACE_PACKET);
	size_t fb = pb_begin(o, TP_FTRACE_EVENTS);
	pb_uint(o, FB_CPU, (uint32_t)ev->payload);
	size_t fe = pb_begin(o, FB_EVENT);
	pb_uint(o, FE_TIMESTAMP, ev->ts);
	pb_uint(o, FE_PID, out ? t->tid : 0);
	size_t ss = pb_begin(o, FE_SCHED_SWITCH);
	if (out)
		c->st.replaced_bytes += pb_string_utf8(o, SS_PREV_COMM, t->name, len);
	pb_int(o, SS_PREV_PID, out ? (int32_t)t->tid : 0);
	pb_int(o, SS_PREV_PRIO, PRIO_NORMAL);
	pb_int(o, SS_PREV_STATE, !out || (ev->payload & PROFEV_SWITCH_PREEMPTED) ? TASK_RUNNING
										: TASK_INTERRUPTIBLE);
	if (!out)
		c->st.replaced_bytes += pb_string_utf8(o, SS_NEXT_COMM, t->name, len);
	pb_int(o, SS_NEXT_PID, out ? 0 : (int32_t)t->tid);
	pb_int(o, SS_NEXT_PRIO, PRIO_NORMAL);
	pb_end(o, ss);
	pb_end(o, fe);
	pb_end(o, fb);
	pb_end(o, pk);
	return 0;
}

