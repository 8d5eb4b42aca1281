#include "curl_on_demand.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

// libcurl's types, as its ABI has them: handles are opaque, enumerations are
// ints, curl_off_t is 64 bits and a socket is a file descriptor.
typedef void CURL;
typedef void CURLM;
typedef void CURLU;
typedef int CURLcode;
typedef int CURLMcode;
typedef int CURLUcode;
typedef int curl_socket_t;
typedef long long curl_off_t;
struct curl_slist;
struct CURLMsg;
struct curl_version_info_data;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = -1;
static char load_error[512] = "libcurl is not loaded";

static CURLcode (*p_global_init)(long);
static CURL *(*p_easy_init)(void);
static CURLcode (*p_easy_setopt)(CURL *, int, ...);
static CURLcode (*p_easy_getinfo)(CURL *, int, ...);
static void (*p_easy_cleanup)(CURL *);
static CURLcode (*p_easy_pause)(CURL *, int);
static const char *(*p_easy_strerror)(CURLcode);
static void (*p_free)(void *);
static CURLM *(*p_multi_init)(void);
static CURLMcode (*p_multi_add_handle)(CURLM *, CURL *);
static CURLMcode (*p_multi_remove_handle)(CURLM *, CURL *);
static CURLMcode (*p_multi_assign)(CURLM *, curl_socket_t, void *);
static CURLMcode (*p_multi_cleanup)(CURLM *);
static struct CURLMsg *(*p_multi_info_read)(CURLM *, int *);
static CURLMcode (*p_multi_setopt)(CURLM *, int, ...);
static CURLMcode (*p_multi_socket_action)(CURLM *, curl_socket_t, int, int *);
static struct curl_slist *(*p_slist_append)(struct curl_slist *, const char *);
static void (*p_slist_free_all)(struct curl_slist *);
static CURLU *(*p_url)(void);
static CURLUcode (*p_url_get)(const CURLU *, int, char **, unsigned int);
static CURLUcode (*p_url_set)(CURLU *, int, const char *, unsigned int);
static char *(*p_version)(void);
static struct curl_version_info_data *(*p_version_info)(int);

static int find(void *library, void **pointer, const char *name) {
    *pointer = dlsym(library, name);
    if (*pointer == NULL) {
        snprintf(load_error, sizeof load_error, "libcurl.so.4 lacks %s", name);
        return -1;
    }
    return 0;
}

static void load(void) {
    // Never closed: FoundationNetworking keeps its handles until the process exits.
    void *library = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        const char *reason = dlerror();
        snprintf(load_error, sizeof load_error, "cannot load libcurl.so.4 (%s)", reason ? reason : "not found");
        return;
    }
    int failed = 0;
    failed |= find(library, (void **)&p_global_init, "curl_global_init");
    failed |= find(library, (void **)&p_easy_init, "curl_easy_init");
    failed |= find(library, (void **)&p_easy_setopt, "curl_easy_setopt");
    failed |= find(library, (void **)&p_easy_getinfo, "curl_easy_getinfo");
    failed |= find(library, (void **)&p_easy_cleanup, "curl_easy_cleanup");
    failed |= find(library, (void **)&p_easy_pause, "curl_easy_pause");
    failed |= find(library, (void **)&p_easy_strerror, "curl_easy_strerror");
    failed |= find(library, (void **)&p_free, "curl_free");
    failed |= find(library, (void **)&p_multi_init, "curl_multi_init");
    failed |= find(library, (void **)&p_multi_add_handle, "curl_multi_add_handle");
    failed |= find(library, (void **)&p_multi_remove_handle, "curl_multi_remove_handle");
    failed |= find(library, (void **)&p_multi_assign, "curl_multi_assign");
    failed |= find(library, (void **)&p_multi_cleanup, "curl_multi_cleanup");
    failed |= find(library, (void **)&p_multi_info_read, "curl_multi_info_read");
    failed |= find(library, (void **)&p_multi_setopt, "curl_multi_setopt");
    failed |= find(library, (void **)&p_multi_socket_action, "curl_multi_socket_action");
    failed |= find(library, (void **)&p_slist_append, "curl_slist_append");
    failed |= find(library, (void **)&p_slist_free_all, "curl_slist_free_all");
    failed |= find(library, (void **)&p_url, "curl_url");
    failed |= find(library, (void **)&p_url_get, "curl_url_get");
    failed |= find(library, (void **)&p_url_set, "curl_url_set");
    failed |= find(library, (void **)&p_version, "curl_version");
    failed |= find(library, (void **)&p_version_info, "curl_version_info");
    if (failed == 0) loaded = 0;
}

int feedsh_curl_load(void) {
    pthread_once(&once, load);
    return loaded;
}

const char *feedsh_curl_load_error(void) { return load_error; }

/// Every function below starts here: FoundationNetworking has no way to hear that
/// libcurl is missing, so a call without it ends the process, saying why.
static void need(void) {
    if (feedsh_curl_load() != 0) {
        fprintf(stderr, "feedsh: %s\n", load_error);
        abort();
    }
}

// The type of a setopt's third argument is told by the option's range, as libcurl
// itself reads it (CURLOPTTYPE_LONG 0, OBJECTPOINT 10000, FUNCTIONPOINT 20000,
// OFF_T 30000, BLOB 40000), for easy and multi handles alike.
#define SETOPT(call, handle, option)                                                                                   \
    do {                                                                                                               \
        va_list arguments;                                                                                             \
        va_start(arguments, option);                                                                                   \
        int result;                                                                                                    \
        if (option < 10000) {                                                                                          \
            result = call(handle, option, va_arg(arguments, long));                                                    \
        } else if (option < 30000) {                                                                                   \
            result = call(handle, option, va_arg(arguments, void *));                                                  \
        } else if (option < 40000) {                                                                                   \
            result = call(handle, option, va_arg(arguments, curl_off_t));                                              \
        } else {                                                                                                       \
            result = call(handle, option, va_arg(arguments, void *));                                                  \
        }                                                                                                              \
        va_end(arguments);                                                                                             \
        return result;                                                                                                 \
    } while (0)

CURLcode curl_global_init(long flags) {
    need();
    return p_global_init(flags);
}
CURL *curl_easy_init(void) {
    need();
    return p_easy_init();
}
CURLcode curl_easy_setopt(CURL *handle, int option, ...) {
    need();
    SETOPT(p_easy_setopt, handle, option);
}
// Every kind of information (string, long, double, list, socket, off_t) is
// written through a pointer.
CURLcode curl_easy_getinfo(CURL *handle, int info, ...) {
    need();
    va_list arguments;
    va_start(arguments, info);
    void *pointer = va_arg(arguments, void *);
    va_end(arguments);
    return p_easy_getinfo(handle, info, pointer);
}
void curl_easy_cleanup(CURL *handle) {
    need();
    p_easy_cleanup(handle);
}
CURLcode curl_easy_pause(CURL *handle, int bitmask) {
    need();
    return p_easy_pause(handle, bitmask);
}
const char *curl_easy_strerror(CURLcode code) {
    need();
    return p_easy_strerror(code);
}
void curl_free(void *pointer) {
    need();
    p_free(pointer);
}
CURLM *curl_multi_init(void) {
    need();
    return p_multi_init();
}
CURLMcode curl_multi_add_handle(CURLM *multi, CURL *handle) {
    need();
    return p_multi_add_handle(multi, handle);
}
CURLMcode curl_multi_remove_handle(CURLM *multi, CURL *handle) {
    need();
    return p_multi_remove_handle(multi, handle);
}
CURLMcode curl_multi_assign(CURLM *multi, curl_socket_t socket, void *pointer) {
    need();
    return p_multi_assign(multi, socket, pointer);
}
CURLMcode curl_multi_cleanup(CURLM *multi) {
    need();
    return p_multi_cleanup(multi);
}
struct CURLMsg *curl_multi_info_read(CURLM *multi, int *remaining) {
    need();
    return p_multi_info_read(multi, remaining);
}
CURLMcode curl_multi_setopt(CURLM *multi, int option, ...) {
    need();
    SETOPT(p_multi_setopt, multi, option);
}
CURLMcode curl_multi_socket_action(CURLM *multi, curl_socket_t socket, int events, int *running) {
    need();
    return p_multi_socket_action(multi, socket, events, running);
}
struct curl_slist *curl_slist_append(struct curl_slist *list, const char *text) {
    need();
    return p_slist_append(list, text);
}
void curl_slist_free_all(struct curl_slist *list) {
    need();
    p_slist_free_all(list);
}
CURLU *curl_url(void) {
    need();
    return p_url();
}
CURLUcode curl_url_get(const CURLU *url, int part, char **text, unsigned int flags) {
    need();
    return p_url_get(url, part, text, flags);
}
CURLUcode curl_url_set(CURLU *url, int part, const char *text, unsigned int flags) {
    need();
    return p_url_set(url, part, text, flags);
}
char *curl_version(void) {
    need();
    return p_version();
}
struct curl_version_info_data *curl_version_info(int age) {
    need();
    return p_version_info(age);
}
