// shim.cpp: the things SimGrid 3.32's C API lacks, behind extern "C".
// - Loading a platform, and setting a --cfg or --log value, throw C++
//   exceptions on bad input; an uncaught one would abort the process, so
//   they are caught here and turned into text.
// - The deadlock signal exists only in C++ (s4u::Engine::on_deadlock_cb).
// - Kernel timers (a callback that maestro runs at a date, with no actor
//   and no activity) have no C binding.
// It builds against SimGrid 3.32 (Debian 12) and 4.0 (Debian 13); where
// their C++ APIs differ, SIMGRID_VERSION picks the one the version has
// (each guard names the release that brought the newer API).
// 3.32's version.h uses SG_BEGIN_DECL without including its definition.
#include <xbt/base.h>
#include <simgrid/version.h>

#include <simgrid/Exception.hpp>
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/engine.h>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>
#if SIMGRID_VERSION < 33300 // 3.33 moved the factor callbacks to NetZone
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#endif
#if SIMGRID_VERSION >= 33500 // 3.35 brought ActivitySet, deprecating Comm::wait_any
#include <simgrid/s4u/ActivitySet.hpp>
#endif
#include <xbt/config.hpp>
#include <xbt/log.h>

#include <string>
#include <unordered_set>
#include <vector>

#include <cstdint>
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
// The first `cap` links' numbers go in ids[]: 0, 1, ... in the order the
// links are first met, kept in each link's user data (plus one); *wifi is
// set when one is a Wi-Fi link, whose lone flows flows.c cannot price.
// The links numbered so far, by number: what pld__sgx_link_name reads.  A
// link's number is kept in its user data, so a later run's platform, whose
// links are new objects, numbers its own from where the last stopped.
static std::vector<simgrid::s4u::Link *> numbered_links;

// A link's number, 0-based, handed out on first use.
static int number_of(simgrid::s4u::Link *l)
{
    auto n = reinterpret_cast<intptr_t>(l->get_data<void>());
    if (n == 0) {
        numbered_links.push_back(l);
        n = static_cast<intptr_t>(numbered_links.size());
        l->set_data(reinterpret_cast<void *>(n));
    }
    return static_cast<int>(n - 1);
}

extern "C" int pld__sgx_route_all(sg_host_t from, sg_host_t to, int *ids, int cap, double *lat)
{
    try {
        std::vector<simgrid::s4u::Link *> links;
        *lat = 0;
        from->route_to(to, links, lat);
        int i = 0;
        for (auto *l : links) {
            if (i < cap)
                ids[i] = number_of(l);
            i++;
        }
        return i;
    } catch (...) {
        return 0;
    }
}

extern "C" const char *pld__sgx_link_name(int id, double *bw)
{
    if (id < 0 || static_cast<size_t>(id) >= numbered_links.size())
        return nullptr;
    *bw = numbered_links[id]->get_bandwidth();
    return numbered_links[id]->get_cname();
}

extern "C" int pld__sgx_route(sg_host_t from, sg_host_t to, double *lat, double *bw, int *ids,
                              int cap, int *wifi, int *shared)
{
    try {
        std::vector<simgrid::s4u::Link *> links;
        *lat = 0;
        from->route_to(to, links, lat);
        *bw = 0;
        *wifi = 0;
        int i = 0;
        for (auto *l : links) {
            if (*bw == 0 || l->get_bandwidth() < *bw)
                *bw = l->get_bandwidth();
            if (l->get_sharing_policy() == simgrid::s4u::Link::SharingPolicy::WIFI)
                *wifi = 1;
            // flows on a fat pipe never share it: a flow whose other links
            // are its own stays solo (flows.c), which a fabric hop in
            // every route between nodes otherwise forbade
            if (l->get_sharing_policy() == simgrid::s4u::Link::SharingPolicy::FATPIPE)
                continue;
            int n = number_of(l);
            if (i < cap)
                ids[i] = n;
            i++;
        }
        *shared = i;
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

// Runs fn(arg) in maestro at `date`, as pld__sgx_timer_set.
extern "C" void *pld__sgx_timer_set_arg(double date, void (*fn)(void *), void *arg)
{
    return simgrid::kernel::timer::Timer::set(date, [fn, arg]() { fn(arg); });
}

// The latency factor of the next comm that pld__sgx_comm_start makes, or
// -1 for the route's own latency.
static double next_lat_factor = -1;

// Lets pld__sgx_comm_start give a comm less latency than its route's: a
// latency-factor callback (CM02's, when network/latency-factor is left
// alone) that is 1 but for such a comm.  Returns 0, or -1 with SimGrid's
// refusal in err.
extern "C" int pld__sgx_latency_hook(char *err, size_t errlen)
{
    return guarded(
        []() {
            auto *root = simgrid::s4u::Engine::get_instance()->get_netzone_root();
            auto factor = [](double, const simgrid::s4u::Host *, const simgrid::s4u::Host *,
                             const std::vector<simgrid::s4u::Link *> &,
                             const std::unordered_set<simgrid::s4u::NetZone *> &) {
                return next_lat_factor >= 0 ? next_lat_factor : 1.0;
            };
#if SIMGRID_VERSION >= 33300
            root->set_latency_factor_cb(factor);
#else
            root->get_network_model()->set_lat_factor_cb(factor);
#endif
        },
        err, errlen);
}

// A host-to-host flow of `bytes` (rounded to whole bytes), started now,
// from an actor or from maestro (a timer), whose latency is the route's
// times `lat_factor` (< 0: 1; needs pld__sgx_latency_hook); returns it for
// pld__sgx_comm_wait.
extern "C" void *pld__sgx_comm_start(sg_host_t from, sg_host_t to, double bytes, double lat_factor)
{
    simgrid::s4u::CommPtr c = simgrid::s4u::Comm::sendto_init(from, to);
    c->set_payload_size(static_cast<uint64_t>(bytes + 0.5));
    next_lat_factor = lat_factor;
    c->start();
    next_lat_factor = -1;
    return new simgrid::s4u::CommPtr(c);
}

// Blocks the calling actor until the flow has ended, and frees the handle.
extern "C" void pld__sgx_comm_wait(void *comm)
{
    auto *c = static_cast<simgrid::s4u::CommPtr *>(comm);
#if SIMGRID_VERSION >= 33500
    simgrid::s4u::ActivitySet one;
    one.push(*c);
    delete c;
    one.wait_any();
#else
    std::vector<simgrid::s4u::CommPtr> one{*c};
    delete c;
    simgrid::s4u::Comm::wait_any(one);
#endif
}
