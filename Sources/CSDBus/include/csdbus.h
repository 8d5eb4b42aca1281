#ifndef CSDBUS_H
#define CSDBUS_H

// The part of libsystemd's sd-bus (<systemd/sd-bus.h>) that feedsh's media keys
// use, loaded when first asked for (csd_load) rather than linked: every start of
// feedsh would otherwise load libsystemd and the six libraries under it, for a
// feature only `play` uses. The declarations are sd-bus's own (a stable ABI,
// libsystemd.so.0, since systemd 221), so building needs no -dev package.

#include <stdint.h>

typedef struct sd_bus sd_bus;
typedef struct sd_bus_message sd_bus_message;
typedef struct sd_bus_slot sd_bus_slot;

/// sd-bus's error: a D-Bus error name and a message.
typedef struct csd_error {
    const char *name;
    const char *message;
    int _need_free;
} csd_error;

/// Called for each message sent to an object path (sd_bus_message_handler_t).
typedef int (*csd_handler)(sd_bus_message *message, void *userdata, csd_error *error);

/// Loads libsystemd.so.0 and finds the functions below, once; 0 when they are
/// there, -1 when not (csd_load_error then says why).
int csd_load(void);
const char *csd_load_error(void);

int csd_open_user(sd_bus **bus);
int csd_request_name(sd_bus *bus, const char *name, uint64_t flags);
int csd_add_object(sd_bus *bus, sd_bus_slot **slot, const char *path, csd_handler callback, void *userdata);
int csd_get_fd(sd_bus *bus);
int csd_get_events(sd_bus *bus);
int csd_get_timeout(sd_bus *bus, uint64_t *usec);
int csd_process(sd_bus *bus);
int csd_flush(sd_bus *bus);
void csd_close(sd_bus *bus);
void csd_slot_unref(sd_bus_slot *slot);

const char *csd_message_interface(sd_bus_message *message);
const char *csd_message_member(sd_bus_message *message);
int csd_message_peek_type(sd_bus_message *message, char *type, const char **contents);
int csd_message_read_basic(sd_bus_message *message, char type, void *value);
int csd_message_enter(sd_bus_message *message, char type, const char *contents);
int csd_message_exit(sd_bus_message *message);
int csd_message_skip(sd_bus_message *message, const char *types);

int csd_new_method_return(sd_bus_message *call, sd_bus_message **reply);
int csd_new_method_error(sd_bus_message *call, sd_bus_message **reply, const char *name, const char *text);
int csd_new_signal(sd_bus *bus, sd_bus_message **message, const char *path, const char *interface, const char *member);
int csd_append_basic(sd_bus_message *message, char type, const void *value);
int csd_open_container(sd_bus_message *message, char type, const char *contents);
int csd_close_container(sd_bus_message *message);
int csd_send(sd_bus *bus, sd_bus_message *message);
void csd_message_unref(sd_bus_message *message);

#endif
