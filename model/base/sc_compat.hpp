// sc_compat.hpp - what differs between the SystemC versions gdsim builds against
// (Debian's 2.3.4 and Accellera's 3.0.x, `make SYSTEMC_HOME=DIR`).
#ifndef GD_SC_COMPAT_HPP
#define GD_SC_COMPAT_HPP

#include <systemc>

// SystemC 2.3 needs SC_HAS_PROCESS in a module whose constructor registers processes
// but was not declared with SC_CTOR; IEEE 1666-2023 (SystemC 3) finds the module's
// type by itself and deprecates the macro (a warning, an error under -Werror).
#if defined(IEEE_1666_SYSTEMC) && IEEE_1666_SYSTEMC >= 202301L
#define GD_SC_HAS_PROCESS(module) static_assert(true, "")
#else
#define GD_SC_HAS_PROCESS(module) SC_HAS_PROCESS(module)
#endif

#endif
