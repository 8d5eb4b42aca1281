// Non-variadic wrappers around libedit's variadic el_set/el_get/history,
// which Swift cannot call directly.
#ifndef FEEDSH_CEDITLINE_SHIM_H
#define FEEDSH_CEDITLINE_SHIM_H

#include <histedit.h>
#include <stdio.h>

typedef char *(*feedsh_prompt_fn)(EditLine *);
typedef int (*feedsh_read_fn)(EditLine *, wchar_t *);
typedef unsigned char (*feedsh_command_fn)(EditLine *, int);

static inline int feedsh_el_set_prompt(EditLine *el, feedsh_prompt_fn fn) {
    return el_set(el, EL_PROMPT, fn);
}

static inline int feedsh_el_set_editor(EditLine *el, const char *mode) {
    return el_set(el, EL_EDITOR, mode);
}

static inline int feedsh_el_set_signal(EditLine *el, int on) {
    return el_set(el, EL_SIGNAL, on);
}

/// Replaces libedit's read-a-character function (EL_GETCFN).
static inline int feedsh_el_set_getcfn(EditLine *el, feedsh_read_fn fn) {
    return el_set(el, EL_GETCFN, fn);
}

/// Puts the terminal into libedit's editing (raw) mode now, or back (EL_PREP_TERM).
static inline int feedsh_el_prep_term(EditLine *el, int on) {
    return el_set(el, EL_PREP_TERM, on);
}

/// Redraws the prompt and the line being edited (EL_REFRESH).
static inline int feedsh_el_refresh(EditLine *el) {
    return el_set(el, EL_REFRESH);
}

static inline int feedsh_el_set_hist(EditLine *el, History *h) {
    return el_set(el, EL_HIST, history, h);
}

static inline int feedsh_el_set_clientdata(EditLine *el, void *data) {
    return el_set(el, EL_CLIENTDATA, data);
}

static inline void *feedsh_el_get_clientdata(EditLine *el) {
    void *data = NULL;
    if (el_get(el, EL_CLIENTDATA, &data) != 0) {
        return NULL;
    }
    return data;
}

static inline int feedsh_el_add_function(EditLine *el, const char *name, const char *help,
                                         feedsh_command_fn fn) {
    return el_set(el, EL_ADDFN, name, help, fn);
}

static inline int feedsh_el_bind(EditLine *el, const char *key, const char *fn) {
    return el_set(el, EL_BIND, key, fn, NULL);
}

static inline int feedsh_history_setsize(History *h, int size) {
    HistEvent ev;
    return history(h, &ev, H_SETSIZE, size);
}

static inline int feedsh_history_setunique(History *h, int unique) {
    HistEvent ev;
    return history(h, &ev, H_SETUNIQUE, unique);
}

static inline int feedsh_history_enter(History *h, const char *line) {
    HistEvent ev;
    return history(h, &ev, H_ENTER, line);
}

static inline int feedsh_history_load(History *h, const char *path) {
    HistEvent ev;
    return history(h, &ev, H_LOAD, path);
}

static inline int feedsh_history_save(History *h, const char *path) {
    HistEvent ev;
    return history(h, &ev, H_SAVE, path);
}

/// One history entry: op is H_FIRST, H_LAST, H_NEXT or H_PREV. NULL past either end.
/// The string belongs to the history and stays valid until it changes.
static inline const char *feedsh_history_step(History *h, int op) {
    HistEvent ev;
    if (history(h, &ev, op) != 0) {
        return NULL;
    }
    return ev.str;
}

#endif
