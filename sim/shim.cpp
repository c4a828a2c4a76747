// shim.cpp: the things SimGrid 3.32's C API lacks, behind extern "C".
// - Loading a platform throws C++ exceptions on malformed files; an uncaught
//   one would abort the process, so it is caught here and turned into text.
// - The deadlock signal exists only in C++ (s4u::Engine::on_deadlock_cb).
#include <simgrid/Exception.hpp>
#include <simgrid/engine.h>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <vector>

#include <cstdio>
#include <exception>

extern "C" int pld__sgx_load_platform(const char *path, char *err, size_t errlen)
{
    try {
        simgrid_load_platform(path);
        return 0;
    } catch (const std::exception &e) {
        std::snprintf(err, errlen, "%s", e.what());
    } catch (...) {
        std::snprintf(err, errlen, "unknown SimGrid error");
    }
    return -1;
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
