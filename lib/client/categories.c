/*
 * categories.c - the categories macros name: numbered as they register,
 * announced to pfrec with whether PROFEV_CATEGORIES wants them, switched
 * off all at once when the recording ends or in a forked child.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include "client.h"

/* Frame marks are on whenever the client records; index 0 = no category. */
PROFEV_API struct profev_category profev__frames = { 0, 0, 0, "frame", "frame marks", 0 };
/* The memory macros' category: --categories=-memory turns them off. */
PROFEV_API struct profev_category profev__memory = { 0, 0, 0, "memory", "memory events", 0 };
/* Arguments and flow marks: on whenever the client records (no index). */
PROFEV_API struct profev_category profev__rec = { 0, 0, 0, "rec", "arguments and flows", 0 };
/* The lock macros' category: --categories=-lock turns them off. */
PROFEV_API struct profev_category profev__locks = { 0, 0, 0, "lock", "lock contention", 0 };
struct profev_category profev__app_info = { 0, 0, 0, "app_info", "profev_app_info()", 0 };
struct profev_category profev__program_name = { 0, 0, 0, "program_name", "profev_program_name()", 0 };

static pthread_mutex_t cat_lock = PTHREAD_MUTEX_INITIALIZER;
static struct profev_category *categories;
static uint16_t ncategories;
static char *category_list;

/*
 * PROFEV_CATEGORIES is a comma-separated list read left to right: "name"
 * enables, "-name" disables, "*" and "-*" stand for every category. When
 * the first item enables something, the list starts from nothing enabled
 * ("render" records only render); otherwise from everything enabled.
 */
int category_wanted(const char *name)
{
	const char *s = category_list;
	if (!s || !*s)
		return 1;
	int on = s[0] == '-';
	while (*s) {
		size_t n = strcspn(s, ",");
		int neg = s[0] == '-';
		const char *item = s + neg;
		size_t len = n - (size_t)neg;
		if ((len == 1 && item[0] == '*') || (len == strlen(name) && !memcmp(item, name, len)))
			on = !neg;
		s += n;
		if (*s == ',')
			s++;
	}
	return on;
}

void categories_select(const char *list)
{
	if (list)
		category_list = strdup(list);
}

static void category_announce(struct profev_category *c, int enabled)
{
	struct pfw_category pc = { c->index, (uint32_t)enabled, (uint32_t)strlen(c->name), 0 };
	defs_append(PFW_CATEGORY, &pc, sizeof pc, c->name, pc.name_len, c->description,
		    (uint32_t)strlen(c->description));
}

void category_add(struct profev_category *c)
{
	pthread_mutex_lock(&cat_lock);
	if (c->index == 0 && ncategories < UINT16_MAX) {
		c->index = ++ncategories;
		c->end_word = pfw_word(PFW_R_ZONE_END, c->index, 0);
		c->next = categories;
		ATOMIC_STORE(&categories, c);
		if (ATOMIC_LOAD(&cl.active) || ATOMIC_LOAD(&cl.ondemand)) {
			int on = category_wanted(c->name);
			category_announce(c, on);
			/* On demand and not attached: announced (logged), off. */
			if (!ATOMIC_LOAD(&cl.active))
				on = 0;
			/* Release: index, end_word and the queued CATEGORY
			 * come before any record that a macro makes once it
			 * sees the category on (profev__on's acquire). */
			__atomic_store_n(&c->enabled, (unsigned char)on, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&cat_lock);
}

void categories_start(void)
{
	category_add(&profev__memory);
	category_add(&profev__locks);
	category_add(&profev__app_info);
	category_add(&profev__program_name);
	/* On demand, frame marks are always on: counted, and recorded while
	 * attached; arguments and flows only while attached. */
	int rec = ATOMIC_LOAD(&cl.active);
	__atomic_store_n(&profev__frames.enabled, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&profev__rec.enabled, (unsigned char)rec, __ATOMIC_RELEASE);
}

void categories_announce_all(void)
{
	pthread_mutex_lock(&cat_lock);
	for (struct profev_category *c = categories; c; c = c->next)
		category_announce(c, category_wanted(c->name));
	pthread_mutex_unlock(&cat_lock);
}

void categories_session(int on)
{
	pthread_mutex_lock(&cat_lock);
	for (struct profev_category *c = categories; c; c = c->next)
		__atomic_store_n(&c->enabled, (unsigned char)(on && category_wanted(c->name)),
				 __ATOMIC_RELEASE);
	__atomic_store_n(&profev__rec.enabled, (unsigned char)on, __ATOMIC_RELEASE);
	__atomic_store_n(&profev__frames.enabled, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&cat_lock);
}

/* Called on shutdown and in forked children: no more events anywhere. */
void categories_disable_all(void)
{
	if (!ATOMIC_LOAD(&cl.ondemand))
		__atomic_store_n(&profev__frames.enabled, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&profev__rec.enabled, 0, __ATOMIC_RELAXED);
	for (struct profev_category *c = ATOMIC_LOAD(&categories); c; c = c->next)
		__atomic_store_n(&c->enabled, 0, __ATOMIC_RELAXED);
}
