// rsb_msg.hpp - what the reference state buffer accepts (from the packet
// processor): install, lookup and evict one entry. Each transaction's delay grows
// by the buffer's access latency (rsb.access_cycles), so the caller learns when
// the access is done.
#ifndef GD_RSB_MSG_HPP
#define GD_RSB_MSG_HPP

#include "aql.h"
#include "gd_msg.hpp"

namespace gd {
namespace op {
constexpr op_code rsb_install = op_code_of('r', 's', 1);  // a reference packet writes its entry
constexpr op_code rsb_lookup = op_code_of('r', 's', 2);   // a condensed packet's kernel reads its entry
constexpr op_code rsb_evict = op_code_of('r', 's', 3);    // invalidate an entry
}  // namespace op

struct rsb_body {
    uint32_t ref_num;                 // the entry
    const gd_aql_dispatch *pkt;       // install: the reference packet's dispatch
    bool held;                        // result: the entry held a dispatch (install, evict: it was replaced
                                      // or invalidated; lookup: a hit)
    const gd_aql_dispatch *entry;     // result, lookup: the stored dispatch (valid until the entry changes),
                                      // or null on a miss
};

}  // namespace gd

#endif
