#ifndef CURL_ON_DEMAND_H
#define CURL_ON_DEMAND_H

// libcurl, loaded when FoundationNetworking first calls it rather than linked:
// feedsh is one program, and every start of it would otherwise load libcurl and
// the thirty-odd libraries under it (6 MiB of a start's 19), for what only
// `--engine urlsession` uses. curl_on_demand.c defines the functions of libcurl
// that FoundationNetworking calls; each loads libcurl.so.4 once and calls its own.
// The declarations there are libcurl's (a stable ABI, libcurl.so.4, since 7.16),
// so building needs no -dev package.

/// Loads libcurl.so.4 and finds its functions, once: 0 when they are there, -1
/// when not (feedsh_curl_load_error then says why). A curl function called after
/// a failed load ends the process with that message: call this first.
int feedsh_curl_load(void);
const char *feedsh_curl_load_error(void);

#endif
