#include "pass_through.hpp"

namespace gd {

pass_through::pass_through(sc_core::sc_module_name name)
    : sc_module(name), down_in("down_in"), down_out("down_out"), up_in("up_in"), up_out("up_out")
{
    down_in.register_b_transport(this, &pass_through::down);
    up_in.register_b_transport(this, &pass_through::up);
}

pass_through::~pass_through()
{
    std::fprintf(stderr, "pass_through: %llu transactions down, %llu up\n", downs_, ups_);
}

void pass_through::down(tlm::tlm_generic_payload &p, sc_core::sc_time &delay)
{
    downs_++;
    down_out->b_transport(p, delay);
}

void pass_through::up(tlm::tlm_generic_payload &p, sc_core::sc_time &delay)
{
    ups_++;
    up_out->b_transport(p, delay);
}

}  // namespace gd
