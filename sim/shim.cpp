// shim.cpp: the things SimGrid 3.32's C API lacks, behind extern "C".
// - Loading a platform, and setting a --cfg or --log value, throw C++
//   exceptions on bad input; an uncaught one would abort the process, so
//   they are caught here and turned into text.
// - The deadlock signal exists only in C++ (s4u::Engine::on_deadlock_cb).
// - Kernel timers (a callback that maestro runs at a date, with no actor
//   and no activity) have no C binding.
#include <simgrid/Exception.hpp>
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/engine.h>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <xbt/config.hpp>
#include <xbt/log.h>

#include <string>
#include <vector>

#include <cstdio>
#include <cstring>
#include <exception>

// Runs `f`, turning what SimGrid throws into the first line of its message
// in `err` (a config error goes on to list every key SimGrid has); returns
// 0, or -1 after a throw.
template <class F> static int guarded(F f, char *err, size_t errlen)
{
    try {
        f();
        return 0;
    } catch (const std::exception &e) {
        const char *what = e.what(), *nl = std::strchr(what, '\n');
        std::snprintf(err, errlen, "%.*s", nl ? (int)(nl - what) : (int)std::strlen(what), what);
    } catch (...) {
        std::snprintf(err, errlen, "unknown SimGrid error");
    }
    return -1;
}

extern "C" int pld__sgx_load_platform(const char *path, char *err, size_t errlen)
{
    return guarded([path]() { simgrid_load_platform(path); }, err, errlen);
}

// A --cfg=KEY:VALUE setting; SimGrid throws on an unknown key or a value
// it cannot parse.
extern "C" int pld__sgx_cfg(const char *key_value, char *err, size_t errlen)
{
    return guarded([key_value]() { simgrid::config::set_parse(key_value); }, err, errlen);
}

// A --log=SPEC setting (xbt_log_control_set), likewise.
extern "C" int pld__sgx_log(const char *spec, char *err, size_t errlen)
{
    return guarded([spec]() { xbt_log_control_set(spec); }, err, errlen);
}

// Does SimGrid's tracing, as configured, trace the platform's links as
// resources?  SimGrid 3.32 then aborts on a split-duplex link ("container
// with name l_DOWN not found"), which every generated platform has.
extern "C" int pld__sgx_traces_links(void)
{
    namespace cfg = simgrid::config;
    try {
        if (!cfg::get_value<bool>("tracing"))
            return 0;
        return cfg::get_value<bool>("tracing/actor") ||
               cfg::get_value<bool>("tracing/categorized") ||
               cfg::get_value<bool>("tracing/uncategorized") ||
               (cfg::get_value<bool>("tracing/platform") &&
                cfg::get_value<bool>("tracing/platform/topology"));
    } catch (...) {
        return 0;
    }
}

// Where SimGrid's tracing writes, or NULL when it is off.
extern "C" const char *pld__sgx_trace_file(void)
{
    static std::string name;
    try {
        if (!simgrid::config::get_value<bool>("tracing"))
            return nullptr;
        name = simgrid::config::get_value<std::string>("tracing/filename");
        return name.c_str();
    } catch (...) {
        return nullptr;
    }
}

extern "C" void pld__sgx_on_deadlock(void (*cb)(void))
{
    simgrid::s4u::Engine::on_deadlock_cb([cb]() { cb(); });
}

// Seals the platform so routes can be queried before the simulation starts.
extern "C" void pld__sgx_seal(void)
{
    simgrid::s4u::Engine::get_instance()->seal_platform();
}

// The route from `from` to `to`: its link count (0: no path), and in `lat`
// and `bw` the sum of its latencies (s) and its bottleneck bandwidth (B/s):
// what a quiet route gives one flow under CM02 (shared/simgrid-notes.md).
extern "C" int pld__sgx_route(sg_host_t from, sg_host_t to, double *lat, double *bw)
{
    try {
        std::vector<simgrid::s4u::Link *> links;
        *lat = 0;
        from->route_to(to, links, lat);
        *bw = 0;
        for (const auto *l : links)
            if (*bw == 0 || l->get_bandwidth() < *bw)
                *bw = l->get_bandwidth();
        return (int)links.size();
    } catch (...) {
        return 0;
    }
}

// Runs fn() in maestro once SimGrid's clock reaches `date` (s), before any
// actor runs at that date; returns the timer, for pld__sgx_timer_cancel.
// Only the library's Timer::set and remove are called: Timer::next and
// kernel_timers() are inline, and a copy of their heap here would not be
// SimGrid's.
extern "C" void *pld__sgx_timer_set(double date, void (*fn)(void))
{
    return simgrid::kernel::timer::Timer::set(date, [fn]() { fn(); });
}

// Cancels a timer that has not fired.
extern "C" void pld__sgx_timer_cancel(void *timer)
{
    static_cast<simgrid::kernel::timer::Timer *>(timer)->remove();
}

// One flow of `bytes` from `from` to `to` that starts when SimGrid's clock
// reaches `start` (s; now if it has already), for the calling actor, which
// blocks until it has ended.  Why not a sleep until `start` and then
// sg_host_sendto: that is two blocking simcalls, a sleep activity and the
// CPU sleep action that Comm::wait_for makes to watch the host, where this
// is one simcall and a timer.  The comm is made unstarted; Comm::wait_any
// on it registers the wait in the kernel without starting it (Comm::wait
// would start it now), and the timer starts it at `start` from maestro.
extern "C" void pld__sgx_flow_at(sg_host_t from, sg_host_t to, double bytes, double start)
{
    simgrid::s4u::CommPtr c = simgrid::s4u::Comm::sendto_init(from, to);
    c->set_payload_size(static_cast<uint64_t>(bytes));
    if (start > simgrid::s4u::Engine::get_clock())
        simgrid::kernel::timer::Timer::set(start, [c]() { c->start(); });
    else
        c->start();
    std::vector<simgrid::s4u::CommPtr> one{c};
    simgrid::s4u::Comm::wait_any(one);
}
