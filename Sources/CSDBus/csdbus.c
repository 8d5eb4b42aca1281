#include "csdbus.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded = -1;
static const char *load_error = "libsystemd is not loaded";

static int (*p_open_user)(sd_bus **);
static int (*p_request_name)(sd_bus *, const char *, uint64_t);
static int (*p_add_object)(sd_bus *, sd_bus_slot **, const char *, csd_handler, void *);
static int (*p_get_fd)(sd_bus *);
static int (*p_get_events)(sd_bus *);
static int (*p_get_timeout)(sd_bus *, uint64_t *);
static int (*p_process)(sd_bus *, sd_bus_message **);
static int (*p_flush)(sd_bus *);
static sd_bus *(*p_flush_close_unref)(sd_bus *);
static sd_bus_slot *(*p_slot_unref)(sd_bus_slot *);
static const char *(*p_get_interface)(sd_bus_message *);
static const char *(*p_get_member)(sd_bus_message *);
static int (*p_peek_type)(sd_bus_message *, char *, const char **);
static int (*p_read_basic)(sd_bus_message *, char, void *);
static int (*p_enter_container)(sd_bus_message *, char, const char *);
static int (*p_exit_container)(sd_bus_message *);
static int (*p_skip)(sd_bus_message *, const char *);
static int (*p_new_method_return)(sd_bus_message *, sd_bus_message **);
static int (*p_new_method_error)(sd_bus_message *, sd_bus_message **, const csd_error *);
static int (*p_new_signal)(sd_bus *, sd_bus_message **, const char *, const char *, const char *);
static int (*p_append_basic)(sd_bus_message *, char, const void *);
static int (*p_open_container)(sd_bus_message *, char, const char *);
static int (*p_close_container)(sd_bus_message *);
static int (*p_send)(sd_bus *, sd_bus_message *, uint64_t *);
static sd_bus_message *(*p_message_unref)(sd_bus_message *);

static int find(void *library, void **pointer, const char *name) {
    *pointer = dlsym(library, name);
    if (*pointer == NULL) {
        load_error = "libsystemd.so.0 lacks a function of sd-bus";
        return -1;
    }
    return 0;
}

static void load(void) {
    // Never closed: the functions stay in use until the process exits.
    void *library = dlopen("libsystemd.so.0", RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) {
        load_error = "libsystemd.so.0 is not installed";
        return;
    }
    int failed = 0;
    failed |= find(library, (void **)&p_open_user, "sd_bus_open_user");
    failed |= find(library, (void **)&p_request_name, "sd_bus_request_name");
    failed |= find(library, (void **)&p_add_object, "sd_bus_add_object");
    failed |= find(library, (void **)&p_get_fd, "sd_bus_get_fd");
    failed |= find(library, (void **)&p_get_events, "sd_bus_get_events");
    failed |= find(library, (void **)&p_get_timeout, "sd_bus_get_timeout");
    failed |= find(library, (void **)&p_process, "sd_bus_process");
    failed |= find(library, (void **)&p_flush, "sd_bus_flush");
    failed |= find(library, (void **)&p_flush_close_unref, "sd_bus_flush_close_unref");
    failed |= find(library, (void **)&p_slot_unref, "sd_bus_slot_unref");
    failed |= find(library, (void **)&p_get_interface, "sd_bus_message_get_interface");
    failed |= find(library, (void **)&p_get_member, "sd_bus_message_get_member");
    failed |= find(library, (void **)&p_peek_type, "sd_bus_message_peek_type");
    failed |= find(library, (void **)&p_read_basic, "sd_bus_message_read_basic");
    failed |= find(library, (void **)&p_enter_container, "sd_bus_message_enter_container");
    failed |= find(library, (void **)&p_exit_container, "sd_bus_message_exit_container");
    failed |= find(library, (void **)&p_skip, "sd_bus_message_skip");
    failed |= find(library, (void **)&p_new_method_return, "sd_bus_message_new_method_return");
    failed |= find(library, (void **)&p_new_method_error, "sd_bus_message_new_method_error");
    failed |= find(library, (void **)&p_new_signal, "sd_bus_message_new_signal");
    failed |= find(library, (void **)&p_append_basic, "sd_bus_message_append_basic");
    failed |= find(library, (void **)&p_open_container, "sd_bus_message_open_container");
    failed |= find(library, (void **)&p_close_container, "sd_bus_message_close_container");
    failed |= find(library, (void **)&p_send, "sd_bus_send");
    failed |= find(library, (void **)&p_message_unref, "sd_bus_message_unref");
    if (failed == 0) loaded = 0;
}

int csd_load(void) {
    pthread_once(&once, load);
    return loaded;
}

const char *csd_load_error(void) { return load_error; }

int csd_open_user(sd_bus **bus) { return p_open_user(bus); }
int csd_request_name(sd_bus *bus, const char *name, uint64_t flags) { return p_request_name(bus, name, flags); }
int csd_add_object(sd_bus *bus, sd_bus_slot **slot, const char *path, csd_handler callback, void *userdata) {
    return p_add_object(bus, slot, path, callback, userdata);
}
int csd_get_fd(sd_bus *bus) { return p_get_fd(bus); }
int csd_get_events(sd_bus *bus) { return p_get_events(bus); }
int csd_get_timeout(sd_bus *bus, uint64_t *usec) { return p_get_timeout(bus, usec); }
int csd_process(sd_bus *bus) { return p_process(bus, NULL); }
int csd_flush(sd_bus *bus) { return p_flush(bus); }
void csd_close(sd_bus *bus) { p_flush_close_unref(bus); }
void csd_slot_unref(sd_bus_slot *slot) { p_slot_unref(slot); }

const char *csd_message_interface(sd_bus_message *message) { return p_get_interface(message); }
const char *csd_message_member(sd_bus_message *message) { return p_get_member(message); }
int csd_message_peek_type(sd_bus_message *message, char *type, const char **contents) {
    return p_peek_type(message, type, contents);
}
int csd_message_read_basic(sd_bus_message *message, char type, void *value) {
    return p_read_basic(message, type, value);
}
int csd_message_enter(sd_bus_message *message, char type, const char *contents) {
    return p_enter_container(message, type, contents);
}
int csd_message_exit(sd_bus_message *message) { return p_exit_container(message); }
int csd_message_skip(sd_bus_message *message, const char *types) { return p_skip(message, types); }

int csd_new_method_return(sd_bus_message *call, sd_bus_message **reply) { return p_new_method_return(call, reply); }
int csd_new_method_error(sd_bus_message *call, sd_bus_message **reply, const char *name, const char *text) {
    csd_error error = {name, text, 0};
    return p_new_method_error(call, reply, &error);
}
int csd_new_signal(sd_bus *bus, sd_bus_message **message, const char *path, const char *interface, const char *member) {
    return p_new_signal(bus, message, path, interface, member);
}
int csd_append_basic(sd_bus_message *message, char type, const void *value) {
    return p_append_basic(message, type, value);
}
int csd_open_container(sd_bus_message *message, char type, const char *contents) {
    return p_open_container(message, type, contents);
}
int csd_close_container(sd_bus_message *message) { return p_close_container(message); }
int csd_send(sd_bus *bus, sd_bus_message *message) { return p_send(bus, message, NULL); }
void csd_message_unref(sd_bus_message *message) { p_message_unref(message); }
