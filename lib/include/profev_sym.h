/*
 * profev_sym.h - offline symbolization of callstack frames (libprofev).
 *
 * Three layers, each usable alone:
 *   - struct profev_symbolizer: one ELF file's DWARF (line tables,
 *     subprograms, inline chains; DWARF 2 to 5) and symbol table, loaded
 *     once per compile unit, then any number of address lookups by binary
 *     search (fastest in address order);
 *   - profev_debuginfo_find(): where a module's debug info lives
 *     (--debug-dir build-id trees, .gnu_debuglink, /usr/lib/debug, the
 *     module itself), refusing files whose build-id differs;
 *     profev_debuginfo_fetch(): else from debuginfod servers;
 *   - profev_symtrace(): rewrite a trace with symbols chunks for every
 *     (module, offset) its callstacks use (what pfsym runs).
 *
 * Answers follow llvm-symbolizer --inlines --demangle: the same frames, in
 * the same order, with the same function names, absolute file paths, lines
 * and columns, including its rule that the outermost frame is named from the
 * ELF symbol table when a symbol covers the address.
 *
 * The library never prints; warnings about skipped debug files are returned
 * as data. Handles must not be shared between threads.
 */
#ifndef PROFEV_SYM_H
#define PROFEV_SYM_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include "profev_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default) /* the API: exported (profev_trace.h) */

/* ------------------------------------------------------------------ */
/* Symbolizer                                                          */
/* ------------------------------------------------------------------ */

struct profev_symbolizer;

/**
 * Open an ELF file (executable, shared object or separate debug file) for
 * lookups. Reads the symbol table and the list of compile units at once;
 * each unit's line table and DIE ranges are loaded the first time an
 * address inside it is looked up, and kept. An address no DWARF unit covers
 * (start-up code, assembly, objects built without -g), and a file without
 * DWARF, still answer from the symbol table.
 * @param symbols_path the module, when path is its separate debug file
 *        (NULL: none): the symbol table is path's .symtab, else the
 *        module's .symtab, else path's or the module's .dynsym, so that the
 *        answers are llvm-symbolizer's on the unstripped module.
 * DWARF sections compressed with zlib or zstd (SHF_COMPRESSED) or in the
 * GNU .zdebug form are decompressed. Damaged DWARF is not an error: units
 * that cannot be read (a length, offset or range list outside its section,
 * an unknown version, form or abbreviation, a line program that does not
 * hold together, a subroutine outside its unit's ranges) are skipped whole
 * and their addresses answered from the symbol table, each said by
 * profev_symbolizer_warnings().
 * @return a symbolizer, or NULL with *err filled (IO: cannot open;
 *         UNSUPPORTED: not an ELF file; CORRUPT: a DWARF section lies
 *         outside the file or does not decompress to its stated size; NOMEM).
 */
struct profev_symbolizer *profev_symbolizer_new(const char *path, const char *symbols_path,
						struct profev_error *err);

/** The files one module's debug info is spread over (see profev_debuginfo). */
struct profev_symbolizer_files {
	const char *path;          /**< the file with the DWARF, or the only one */
	const char *symbols_path;  /**< the module, when path is its separate debug
	                                file (as profev_symbolizer_new()); NULL */
	const char *sup_path;      /**< dwz supplementary file (.gnu_debugaltlink or
	                                DWARF 5 .debug_sup) that path's DWARF
	                                refers to; NULL: none */
	const char *dwp_path;      /**< split DWARF package (.dwp) of the module;
	                                NULL: look for one (see below) */
	const char *const *debug_dirs; /**< where .dwo and .dwp files are also
	                                    looked for (the --debug-dir list) */
	unsigned ndebug_dirs;
};

/**
 * profev_symbolizer_new() for debug info spread over several files: with
 * sup_path, names and strings that dwz moved to the supplementary file
 * (DW_FORM_GNU_ref_alt, DW_FORM_GNU_strp_alt, DW_FORM_ref_sup4/8,
 * DW_FORM_strp_sup) are read from it.
 *
 * Split DWARF (-gsplit-dwarf): the DIEs of a skeleton unit (DWARF 5
 * DW_UT_skeleton, or the GNU DWARF 4 form with DW_AT_GNU_dwo_name and
 * DW_AT_GNU_dwo_id) are read, when an address in it is first looked up,
 * from its split unit, matched by DWO id, in
 *   1. the package dwp_path, else MODULE.dwp beside the module
 *      (symbols_path, else path), PATH.dwp beside path, then
 *      DIR/basename(MODULE).dwp in each debug dir (the first that opens);
 *   2. else the .dwo file DW_AT_dwo_name names: as given when absolute,
 *      else under DW_AT_comp_dir; then DIR/name and DIR/basename(name) in
 *      each debug dir, then basename(name) beside path and the module.
 * Addresses and ranges the split unit gives by index (DW_FORM_addrx,
 * DW_FORM_GNU_addr_index, DW_FORM_rnglistx) come from the skeleton's file.
 * A split unit not found leaves the unit with its lines and the symbol
 * table's function names (as llvm-symbolizer); one found but damaged, or
 * a damaged unit of path itself, leaves the unit unresolved, with a
 * warning (see profev_symbolizer_warnings()).
 * @return as profev_symbolizer_new(); a supplementary file that cannot be
 *         opened or read fails the same way, its name in the message.
 */
struct profev_symbolizer *profev_symbolizer_open(const struct profev_symbolizer_files *files,
						 struct profev_error *err);

/** Whether the file has DWARF (.debug_info) as opposed to symbols only. */
int profev_symbolizer_has_dwarf(const struct profev_symbolizer *s);

/**
 * Look up an ELF virtual address (for a return address pass offset - 1).
 * @param frames set to the inline chain, innermost first; the array is
 *        valid until the next lookup, the strings until the symbolizer is
 *        freed. Unknown fields are NULL / 0 (llvm-symbolizer's "??").
 * @return the number of frames (>= 1), 0 when nothing at all is known about
 *         the address (no function, no file), <0 on error.
 */
int profev_symbolizer_lookup(struct profev_symbolizer *s, uint64_t addr,
			     const struct profev_symframe **frames);

/**
 * What lookups so far found wrong in the debug files and did not use:
 * damaged units of the file ("'f': .debug_info: unit at offset 0x40:
 * abbreviation code 9 not in its table"), split DWARF files refused or
 * not found. Lowercase, no period, each said once; the array and strings
 * are valid until the symbolizer is freed.
 * @return how many, *warnings set to them.
 */
unsigned profev_symbolizer_warnings(const struct profev_symbolizer *s,
				    const char *const **warnings);

/** The symbolizer's last error; never NULL. */
const struct profev_error *profev_symbolizer_error(const struct profev_symbolizer *s);

/** Accepts NULL. */
void profev_symbolizer_free(struct profev_symbolizer *s);

/**
 * Demangle like llvm-symbolizer: names starting with "_Z" through the
 * Itanium demangler (clone suffixes printed " (.cold)"), others unchanged.
 * @return a malloc()ed string, NULL only when out of memory.
 */
char *profev_demangle(const char *name);

/* ------------------------------------------------------------------ */
/* Finding debug info                                                  */
/* ------------------------------------------------------------------ */

/** Where to look, in this order, for each module's debug info. */
struct profev_debuginfo_opts {
	const char *const *debug_dirs;  /**< --debug-dir: DIR/.build-id/xx/rest.debug,
	                                     then DIR/<debuglink name> */
	unsigned ndebug_dirs;
	const char *system_dir;         /**< NULL: "/usr/lib/debug"; "": none */
};

/** Result of a search: the file to use and why others were not used. */
struct profev_debuginfo {
	char *path;          /**< file to symbolize with, NULL if none found */
	int has_dwarf;       /**< path holds DWARF (else symbol table only) */
	char *symbols_path;  /**< the module file when it exists, is ELF with the
	                          recorded build-id and another file holds the
	                          DWARF: its symbol table is used when that file
	                          has no .symtab */
	char *sup_path;      /**< the dwz supplementary file path's DWARF refers
	                          to (.gnu_debugaltlink, .debug_sup), NULL if
	                          none or not found (then a warning says so) */
	char **warnings;     /**< files refused ("'f': build-id ... does not
	                          match the recorded ..."), lowercase, no period */
	unsigned nwarnings;
	int debuginfod;      /**< path came through debuginfod (see
	                          profev_debuginfo_fetch()): 1 downloaded now,
	                          2 already in the debuginfod cache; 0 local */
	char *server;        /**< with debuginfod 1, the server it came from */
};

/**
 * Search debug info for a module recorded at path with the given build-id
 * (build_id_len 0 = unknown: no check). Candidates: each debug dir's
 * .build-id tree, the module's .gnu_debuglink name in each debug dir, beside
 * the module, in its .debug directory and under the system dir (also its
 * .build-id tree), then the module file itself. The first candidate holding
 * DWARF wins; if none does, the first holding a symbol table. A candidate
 * that is not ELF or whose build-id differs from the recorded one is refused
 * with a warning. When the file found refers to a dwz supplementary file,
 * that is looked for by its build-id (or .debug_sup checksum) in each debug
 * dir's .build-id tree and .dwz directory, beside the file, at the name the
 * link gives and under the system dir.
 * @return 0 with *out filled (out->path may be NULL), <0 (NOMEM).
 */
int profev_debuginfo_find(const char *path, const uint8_t *build_id, unsigned build_id_len,
			  const struct profev_debuginfo_opts *opts, struct profev_debuginfo *out);

/** Free what profev_debuginfo_find() filled; accepts NULL. */
void profev_debuginfo_release(struct profev_debuginfo *d);

/* ------------------------------------------------------------------ */
/* debuginfod                                                          */
/* ------------------------------------------------------------------ */

struct profev_debuginfod;

/** One moment of a download, for a progress display. */
struct profev_debuginfod_progress {
	const char *module;    /**< the module's path, as recorded */
	const char *build_id;  /**< in hex */
	const char *server;    /**< the server sending it, NULL until known */
	long long done;        /**< bytes received */
	long long total;       /**< bytes in all; 0: not known (yet) */
	int finished;          /**< 1 on the last call for this file, whatever
	                            the outcome */
};

typedef void (*profev_debuginfod_progress_fn)(void *ctx, const struct profev_debuginfod_progress *p);

struct profev_debuginfod_opts {
	const char *const *urls;  /**< servers to ask; none: those of
	                               $DEBUGINFOD_URLS (space-separated) */
	unsigned nurls;
	int offline;              /**< ask no server; the cache is still read */
	profev_debuginfod_progress_fn progress; /**< NULL: none */
	void *progress_ctx;
	/** bytes a downloaded file may have; 0: $DEBUGINFOD_MAXSIZE, else
	 *  PROFEV_DEBUGINFOD_MAX_SIZE */
	unsigned long long max_size;
	/** seconds one download may take; 0: $DEBUGINFOD_MAXTIME, else
	 *  PROFEV_DEBUGINFOD_MAX_TIME. A client spends at most twice that on
	 *  downloads in all. */
	unsigned max_time;
	/** when *stop becomes non-zero (a signal handler sets it), the
	 *  download under way ends within about a second, keeping nothing,
	 *  and no other starts; NULL: none */
	const volatile sig_atomic_t *stop;
};

#define PROFEV_DEBUGINFOD_MAX_SIZE (1ull << 30)  /**< 1 GiB */
#define PROFEV_DEBUGINFOD_MAX_TIME 120u          /**< seconds */

/**
 * A debuginfod client: debug files fetched by build-id from debuginfod
 * servers through elfutils' libdebuginfod, into its cache
 * ($DEBUGINFOD_CACHE_PATH, else $XDG_CACHE_HOME/debuginfod_client, else
 * ~/.cache/debuginfod_client), which gdb, perf and valgrind share.
 * libdebuginfod.so.1 is loaded with dlopen() the first time a server is
 * to be asked, so that programs linking libprofev need neither it nor
 * libcurl, and run without them (a warning then says the servers were not
 * asked). Files already in the cache are found without it and without a
 * server, also offline. Without servers (no urls, $DEBUGINFOD_URLS unset
 * or empty) or offline, nothing goes to the network.
 * Limits: $DEBUGINFOD_TIMEOUT seconds (libdebuginfod's, default 90) to
 * connect and without progress; each file max_size bytes and max_time
 * seconds (a body longer than that is cut off, announced or not, and
 * nothing of it is kept), at most 8 redirects, and twice max_time
 * for all the downloads of the client.
 * With urls, $DEBUGINFOD_URLS is set to them during each query and then
 * restored (libdebuginfod reads no other setting): do not call while
 * another thread reads the environment.
 * @return a client, NULL with *err filled (NOMEM).
 */
struct profev_debuginfod *profev_debuginfod_new(const struct profev_debuginfod_opts *opts,
						struct profev_error *err);

/** Whether d has servers to ask (not offline, some urls). */
int profev_debuginfod_has_servers(const struct profev_debuginfod *d);

/**
 * When di (from profev_debuginfo_find()) holds no DWARF, find the module's
 * debug file by build-id in the debuginfod cache, else download it from
 * the servers, and check it as profev_debuginfo_find() checks a candidate
 * (ELF, not cut, same build-id, DWARF). When it is good it becomes
 * di->path, with di->debuginfod and di->server set, and the file di had
 * found before (symbols only) becomes di->symbols_path. A file that fails
 * those checks (not ELF, cut, another build-id) leaves the cache, where
 * libdebuginfod keeps what a server sent, and a cached one is then asked
 * for again; a transfer that broke is not left as a remembered miss
 * (libdebuginfod's verbose log tells it from a 404). When the debug
 * file (found here or fetched) refers to a dwz supplementary file by
 * .gnu_debugaltlink that was not found here, that file is fetched the same
 * way by its build-id, and becomes di->sup_path. Otherwise di is
 * left as it was, with a warning appended that names the module, the
 * build-id and the servers: not found, the server's error (refused,
 * timeout, ...), a refused download, offline, or libdebuginfod missing
 * (said once per client). After a timeout the client asks no server again
 * (each later module is warned about instead), so that a silent server
 * costs one timeout per run. Progress goes to the opts' callback.
 * @return 1 when di->path is now the fetched file, 0 when not, <0 (NOMEM).
 */
int profev_debuginfo_fetch(struct profev_debuginfod *d, const char *module, const uint8_t *build_id,
			   unsigned build_id_len, struct profev_debuginfo *di);

/** Ends the client (debuginfod_end()); accepts NULL. */
void profev_debuginfod_free(struct profev_debuginfod *d);

/**
 * Read the GNU build-id note of an ELF file.
 * @return its length (1..len) copied to id, 0 if the file has none,
 *         PROFEV_E_IO if it cannot be opened, PROFEV_E_UNSUPPORTED if it is
 *         not ELF.
 */
int profev_elf_build_id(const char *path, uint8_t *id, unsigned len);

/* ------------------------------------------------------------------ */
/* Rewriting a trace with symbols                                      */
/* ------------------------------------------------------------------ */

struct profev_symtrace_opts {
	struct profev_debuginfo_opts debuginfo;
	struct profev_writer_opts writer;
	/** modules whose debug file is not found locally are fetched by
	 *  build-id (profev_debuginfo_fetch()); all zero: the servers of
	 *  $DEBUGINFOD_URLS, if any */
	struct profev_debuginfod_opts debuginfod;
};

/** What happened to one module of the trace. */
struct profev_symtrace_module {
	const char *path;          /**< as recorded */
	const char *debug_file;    /**< file used, NULL if none was found */
	const char *sup_file;      /**< dwz supplementary file used, NULL if none */
	const char *symbols_file;  /**< module file opened beside debug_file for
	                                its symbol table (used when debug_file
	                                has no .symtab), NULL if none */
	uint64_t addresses;        /**< distinct offsets the stacks use */
	uint64_t kept;             /**< already symbolized in the input */
	uint64_t resolved;         /**< symbolized now */
	uint64_t unresolved;       /**< still without symbols */
	const char *const *warnings; /**< debug files refused, see profev_debuginfo,
	                                  then what the lookups found damaged or
	                                  missing (profev_symbolizer_warnings()) */
	unsigned nwarnings;
	int debuginfod;            /**< debug_file came through debuginfod: 1
	                                downloaded now from server, 2 from the
	                                debuginfod cache; 0: found locally */
	const char *server;        /**< with debuginfod 1, the server */
};

struct profev_symtrace_report {
	struct profev_symtrace_module *modules; /**< one per module of the trace */
	unsigned nmodules;
	uint64_t stacks;           /**< callstacks in the trace */
	uint64_t nomodule_frames;  /**< frames (counted per distinct stack) outside
	                                every module, left as addresses */
};

/**
 * Read the trace on in, write it to fd out with every chunk kept and
 * symbols chunks added right after the modules or stacks chunk that
 * introduces their addresses, so a one-pass reader has them before any
 * event uses them. Addresses already symbolized in the input are kept. The
 * input is read twice: a pipe is first spooled to a temporary file.
 * @param report set to a report to free with profev_symtrace_report_free()
 *        (also on errors that come after debug info was searched; may be NULL).
 * @return 0; <0 with *err filled: input errors as the reader's (with
 *         offsets; a cut input gives PROFEV_E_NOEND and no output), output
 *         errors as the writer's with "output: " before the message.
 */
int profev_symtrace(FILE *in, int out, const struct profev_symtrace_opts *opts,
		    struct profev_symtrace_report **report, struct profev_error *err);

/** Accepts NULL. */
void profev_symtrace_report_free(struct profev_symtrace_report *r);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif
