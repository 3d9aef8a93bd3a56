#!/usr/bin/env python3
"""The bad-input suite (issue 18, item 9): one small file per class of bad input, and
tb/bad/cases.tsv saying for each how gdsim must answer (exit status and a pattern of
the message). tb/test_bad.sh runs them all. Run this to regenerate the files after
adding a case: `python3 tb/bad/gen.py` (same bytes every time; the test checks that).

Each case: (name, file bytes or None, command after `gdsim`, exit status, pattern).
In the command, {F} is the case's file and {T} a folder the test gives. A trace
record's error must name the file, the record and its offset ("F: record N (offset
M)"); the test checks that for every case whose pattern starts with "record".
"""
import gzip
import io
import os
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "scripts"))
import gdtrace as g  # noqa: E402

U64 = 0xFFFFFFFFFFFFFFFF


def dev(**kw):
    d = g.Device("H100", (9, 0), 132, 2048, 65536, 233472, 49152, 232448, 1024, 32, [16] * 6 + [18] * 2)
    for k, v in kw.items():
        setattr(d, k, v)
    return d


class Buf(g.TraceWriter):
    """A TraceWriter into memory; .data() gives the uncompressed bytes."""

    def __init__(self, device=None, minor=9):
        self.raw = io.BytesIO()
        self.f = self.raw
        self.records = self.packets = 0
        self.minor = minor
        self.calibrated = False
        d = device or dev()
        self.f.write(g.MAGIC + struct.pack("<HHI", 1, minor, 0))
        name, prod = d.name.encode(), b"tb/bad"
        payload = struct.pack("<11I", d.cc[0], d.cc[1], d.sms, d.threads_per_sm, d.regs_per_sm, d.smem_per_sm,
                              d.smem_per_cta_default, d.smem_per_cta_optin, d.threads_per_cta, d.warp_size,
                              len(d.gpcs))
        payload += struct.pack("<%dI" % len(d.gpcs), *d.gpcs)
        payload += struct.pack("<H", len(name)) + name + struct.pack("<H", len(prod)) + prod
        self.record(g.REC_HEADER, payload)

    def end(self, records=None, packets=None):
        self.f.write(struct.pack("<HHI", g.REC_END, 0, 16) + struct.pack(
            "<QQ", self.records if records is None else records, self.packets if packets is None else packets))
        self.records += 1
        return self.raw.getvalue()

    def data(self):
        return self.raw.getvalue()


def kernel(w, kid=1, name="k", threads=128, cta_ps=1000000, regs=32, model=g.EXEC_FIXED_CTA):
    w.kernel(kid, name, threads, regs, 0, 0, exec_model=model, cta_ps=cta_ps)


def one(grid=(4, 1, 1), block=(128, 1, 1), cta_ps=1000000, submit=0, device=None, **kw):
    """A one-kernel trace; kw go to dispatch()."""
    w = Buf(device)
    kernel(w, threads=block[0] * block[1] * block[2], cta_ps=cta_ps)
    w.dispatch(0, submit, 1, block, grid, 0, **kw)
    return w.end()


def patched(data, offset, fmt, *values):
    """data with struct fmt values written at offset."""
    b = bytearray(data)
    struct.pack_into(fmt, b, offset, *values)
    return bytes(b)


def gz(data):
    out = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=out, mtime=0) as f:
        f.write(data)
    return out.getvalue()


GOOD = one()
HDR = 16 + 8  # the header record's payload starts here
DISP = None  # offset of the first dispatch record's payload in GOOD


def first_of(data, rtype):
    """Offset of the payload of the first record of rtype."""
    pos = 16
    while pos < len(data):
        t, _, n = struct.unpack_from("<HHI", data, pos)
        if t == rtype:
            return pos + 8
        pos += 8 + n
    raise ValueError(rtype)


DISP = first_of(GOOD, g.REC_DISPATCH)
KERN = first_of(GOOD, g.REC_KERNEL)
AQL = DISP + 16


def raw_record(rtype, payload):
    return struct.pack("<HHI", rtype, 0, len(payload)) + payload


def cases():
    R = r"record [0-9]+ \(offset [0-9]+\)"
    c = []

    def add(name, data, cmd, status, pattern, ext=".gdt"):
        c.append((name + ext if data is not None else name, data, cmd, status, pattern))

    replay = "replay {F} --quiet --no-progress --summary-json {T}/out.json"
    # the file and its framing
    add("empty", b"", replay, 1, "empty file|truncated trace")
    add("one_byte", b"\x89", replay, 1, "truncated|short|empty")
    add("bad_magic", b"GDT!" + GOOD[4:], replay, 1, "bad magic: not a gdsim trace")
    add("text_file", b"kernel,grid\nk,4\n" * 4, replay, 1, "bad magic")
    add("major_2", patched(GOOD, 8, "<H", 2), replay, 1, "format version 2.9 is not supported")
    add("minor_99", patched(GOOD, 10, "<H", 99), replay, 1, "record 0 .*format version 1.99 is newer than this gdsim reads")
    add("file_flags", patched(GOOD, 12, "<I", 1), replay, 1, "unknown file flags")
    add("truncated", GOOD[:-30], replay, 1, "truncated|ends inside|ended")
    add("truncated_gzip", gz(GOOD)[:-12], replay, 1, "truncated|ends inside|ended|gzip|compressed")
    add("no_end", GOOD[:first_of(GOOD, g.REC_END) - 8], replay, 1, "end record|ends without")
    add("end_counts", patched(GOOD, first_of(GOOD, g.REC_END), "<Q", 99), replay, 1, R + ": end record")
    add("after_end", GOOD + raw_record(g.REC_END, struct.pack("<QQ", 4, 1)), replay, 1, R + ".*after the end")
    add("gzip_two_members", gz(GOOD[:100]) + gz(GOOD[100:]), replay, 0, "")  # legal gzip: read as one stream
    add("gzip_trailing_garbage", gz(GOOD) + b"appended", replay, 1,
        R + ": 8 bytes follow the gzip stream \\(from byte [0-9]+ of the file\\): not another gzip member")
    add("gzip_trailing_zeros", gz(GOOD) + b"\0" * 512, replay, 1, R + ": 512 bytes follow the gzip stream")
    add("gzip_trailing_byte", gz(GOOD) + b"\x1f", replay, 1, R + ": 1 byte follows the gzip stream")
    add("gzip_bad_crc", gz(GOOD)[:-8] + b"\xde\xad\xbe\xef" + gz(GOOD)[-4:], replay, 1,
        R + ": corrupt gzip data: incorrect data check")
    add("reserved_type", GOOD[:DISP - 8] + raw_record(7, b"\0" * 16) + GOOD[DISP - 8:], replay, 1,
        R + ".*reserved for a later version")
    add("unknown_type", GOOD[:DISP - 8] + raw_record(99, b"\0" * 16) + GOOD[DISP - 8:], replay, 1,
        R + ".*(unknown|reserved)")
    add("huge_length", GOOD[:DISP - 8] + struct.pack("<HHI", 2, 0, 1 << 30), replay, 1, R + ".*(1 MiB|too large|length)")
    add("record_flags", patched(GOOD, DISP - 6, "<H", 1), replay, 1, R + ".*flags")
    # the header (device description)
    add("header_short", GOOD[:16] + raw_record(1, b"\0" * 20) + GOOD[KERN - 8:], replay, 1, R + ": header record is")
    add("header_0_sms", one(device=dev(sms=0, gpcs=[])), replay, 1, R + ": header: device description out of range")
    add("header_1m_sms", one(device=dev(sms=1000000, gpcs=[])), replay, 1, R + ": header: 1000000 SMs, more than")
    add("header_2000_gpcs", one(device=dev(sms=2000, gpcs=[1] * 2000)), replay, 1, R + ": header: 2000 GPCs")
    add("header_gpc_65_sms", one(device=dev(sms=65, gpcs=[65])), replay, 1, R + ": header: GPC 0 has 65 SMs")
    add("header_smem_0", one(device=dev(smem_per_sm=0, smem_per_cta_default=0, smem_per_cta_optin=0)), replay, 1,
        R + ": header: 0 bytes of shared memory per SM, less than the 1024 bytes compute capability 9.0 reserves")
    add("header_layout_sum", one(device=dev(sms=130)), replay, 1, R + ": header: the GPC layout holds 132 SMs")
    add("header_smem", one(device=dev(smem_per_cta_optin=300000)), replay, 1, R + ": header: shared memory limits")
    add("header_warp_0", one(device=dev(warp_size=0)), replay, 1, R + ": header: device description out of range")
    add("header_regs", one(device=dev(cc=(7, 5), sms=7, gpcs=[], regs_per_sm=1 << 30)), replay, 1,
        R + ": header: the device description gives sm.regs = 1073741824, which the model does not accept")
    add("header_preset_smem", one(device=dev(smem_per_sm=2 ** 32 - 1, smem_per_cta_optin=2 ** 32 - 1)), replay, 1,
        R + ": header: the device description gives sm.smem_bytes = 4294967295")
    add("header_cta_past_sm", one(device=dev(threads_per_cta=4096)), replay, 1,
        R + ": header: 4096 threads per CTA but 2048 per SM")
    add("header_threads_not_warps", one(device=dev(threads_per_sm=2047)), replay, 1,
        R + ": header: 2047 threads per SM is not a whole number of 32-thread warps")
    add("header_cc_0", one(device=dev(cc=(0, 0), gpcs=[])), replay, 1, R + ": header: compute capability 0.0")
    add("header_regs_subpartitions", one(device=dev(cc=(8, 6), sms=7, gpcs=[], regs_per_sm=1)), replay, 1,
        "the configuration resolved with the device this trace describes .* is not valid: sm.regs")
    add("header_65536_sms", one(device=dev(sms=65536, gpcs=[], cc=(8, 6))), replay, 0, "")  # the report stays fast
    add("header_twice", GOOD[:KERN - 8] + GOOD[16:KERN - 8] + GOOD[KERN - 8:], replay, 1, R + ": a second header")
    add("kernel_first", GOOD[:16] + GOOD[KERN - 8:], replay, 1, R + ": the first record must be the header")
    # kernel descriptors
    w = Buf()
    n = b'bad\xff\xfe "quoted", \x01\ncomma \xed\xa0\x80 \xc0\xaf \xe2\x82\xac ok'  # + a surrogate, an overlong
    w.record(g.REC_KERNEL, struct.pack("<6IQH", 1, 128, 32, 0, 0, 1, 1000000, len(n)) + n)
    w.dispatch(0, 0, 1, (128, 1, 1), (4, 1, 1), 0)
    add("name_not_utf8", w.end(), replay, 0, "")
    add("name_forges_lines", one(device=dev(name="H100\n  kernels 9999\x1b[2J")),
        "replay {F} --no-progress", 0, "")  # test_bad.sh checks the report keeps its lines  # replays; test_bad.sh checks its outputs are valid UTF-8
    w = Buf()
    w.record(g.REC_KERNEL, struct.pack("<6IQH", 1, 128, 32, 0, 0, 1, 1000, 0))
    add("kernel_empty_name", w.end(), replay, 1, R + ": kernel descriptor 1 has an empty name")
    w = Buf()
    w.record(g.REC_KERNEL, struct.pack("<6IQH", 1, 128, 32, 0, 0, 1, 1000, 500) + b"k")
    add("kernel_name_past_end", w.end(), replay, 1, R + ".*kernel descriptor")
    w = Buf()
    kernel(w)
    kernel(w)
    add("kernel_duplicate", w.end(), replay, 1, R + ": kernel descriptor id 1 .* is already defined")
    w = Buf()
    kernel(w, model=3)
    add("kernel_model_3", w.end(), replay, 1, R + ": kernel 'k': unknown execution-time model 3")
    w = Buf()
    kernel(w, threads=2000)
    add("kernel_2000_threads", w.end(), replay, 1, R + ": kernel 'k'.*2000 threads")
    w = Buf()
    kernel(w, threads=0)
    add("kernel_0_threads", w.end(), replay, 1, R + ": kernel 'k'.*")
    w = Buf()
    kernel(w, regs=300)
    add("kernel_300_regs", w.end(), replay, 1, R + ": kernel 'k'.*regist")
    # dispatch packets
    add("dispatch_unknown_kernel", patched(GOOD, AQL + 32, "<Q", 7), replay, 1,
        R + ": dispatch packet: kernel_object 7 names no kernel descriptor")
    add("dispatch_queue_1024", patched(GOOD, DISP, "<H", 1024), replay, 1, R + ": dispatch on queue 1024")
    w = Buf()
    kernel(w)
    w.dispatch(0, 500, 1, (128, 1, 1), (4, 1, 1), 0)
    w.dispatch(0, 400, 1, (128, 1, 1), (4, 1, 1), 0)
    add("dispatch_submit_backwards", w.end(), replay, 1, R + ": submit time 400 ns is earlier")
    add("dispatch_grid_0", patched(GOOD, AQL + 12, "<I", 0), replay, 1, R + ": dispatch packet: grid_size_x is 0")
    add("dispatch_workgroup", patched(GOOD, AQL + 4, "<H", 64), replay, 1, R + ": dispatch packet: workgroup of 64")
    add("dispatch_dims_0", patched(GOOD, AQL + 2, "<H", 0), replay, 1, R + ": dispatch packet: setup 0x0000")
    add("dispatch_fence_3", patched(GOOD, AQL, "<H", 2 | (3 << 9)), replay, 1, R + ": dispatch packet: header 0x")
    add("dispatch_type_barrier", patched(GOOD, AQL, "<H", 3 | (2 << 9) | (2 << 11)), replay, 1,
        R + ": dispatch packet: header packet type is 3")
    add("dispatch_grid_x_2e31", one(grid=(1 << 31, 1, 1), block=(1, 1, 1)), replay, 1,
        R + ": dispatch packet: 2147483648 CTAs along x exceed the device's grid limit")
    add("dispatch_max_ctas", one(grid=(2 ** 31 - 1, 65535, 65535), block=(1, 1, 1)), replay, 1,
        R + r": dispatch packet: a grid of 2147483647 x 65535 x 65535 CTAs .* \(sim.max_ctas")
    add("dispatch_submit_2e55", _two_submits(0, 2 ** 55), replay, 1,
        R + r": dispatch: submit time 36028797018963968 ns .* \(sim.max_sim_time_s\)")
    add("dispatch_cta_2e64", one(cta_ps=U64 - 4), replay, 1,
        R + r": dispatch packet: kernel 'k': a CTA duration of 18446744073709551611 ps .*sim.max_sim_time_s")
    w = Buf()
    kernel(w)
    w.dispatch(0, 0, 1, (128, 1, 1), (4, 1, 1), 0, info=(None, None, None, None), wait_until_ns=2 ** 60)
    add("dispatch_wait_2e60", w.end(), replay, 1, R + r": dispatch packet: wait-until time 1152921504606846976 ns")
    add("dispatch_cluster_divide", one(grid=(5, 1, 1), cluster=(2, 1, 1, 1, 0)), replay, 1,
        R + ": dispatch cluster shape: the grid's 5 CTAs along x are not a multiple of the cluster's 2")
    add("dispatch_cluster_mode", one(grid=(4, 1, 1), cluster=(2, 1, 1, 1, 2)), replay, 1,
        R + ": dispatch cluster shape: mode 2")
    add("dispatch_cluster_gpu_cga_0", one(grid=(4, 1, 1), cluster=(2, 1, 1, 0, 0)), replay, 1,
        R + ": dispatch cluster shape: GPC-CGAs per GPU-CGA is 0")
    add("dispatch_vid", one(tenant=(1 << 20, 1)), replay, 1, R + ": dispatch: VID 1048576 is too large")
    add("dispatch_ref_num", _reference(9), replay, 1, R + ": dispatch packet: ref_num 9 is beyond")
    # barrier packets and non-kernel commands
    w = Buf()
    kernel(w)
    w.barrier(0, 0, [], kind_or=True)
    add("barrier_or_no_deps", w.end(), replay, 1, R + ": barrier-OR packet without a dependency signal")
    w = Buf()
    w.barrier(0, 0, [0x1234])
    add("barrier_unknown_signal", w.end(), replay, 1, R + r": barrier-AND packet: dep_signal\[0\] 0x1234 is not")
    w = Buf()
    w.barrier(0, 0, [0x77], signal=0x77)
    add("barrier_waits_itself", w.end(), replay, 1, R + ": barrier-AND packet: dep_signal.*its own completion signal")
    w = Buf()
    w.record(g.REC_NONKERNEL, struct.pack("<HHIQQQQ", 0, 99, 1, 0, 1000, 64, 0))
    add("command_kind", w.end(), replay, 1, R + ": non-kernel command: unknown kind 99")
    w = Buf()
    w.nonkernel(0, 0, "memcpy_htod", 10 ** 19, 64)
    add("command_duration", w.end(), replay, 1, R + ": non-kernel command: duration of 10000000000000000000 ps")
    w = Buf()
    kernel(w)
    w.dispatch(0, 0, 1, (128, 1, 1), (4, 1, 1), 0)
    packets, w.packets = w.packets, 0  # lets the writer put it after the packet: the reader must refuse it
    w.calibration("tb/bad", {"pp.gap_kernel_kernel_ns": 100})
    w.packets = packets
    add("calibration_late", w.end(), replay, 1, R + ": a calibration record must directly follow the header")
    for name, text, why in (("calibration_crlf", b"pp.gap_kernel_kernel_ns = 100\r\n", "line 1: a carriage return"),
                            ("calibration_no_lf", b"pp.gap_kernel_kernel_ns = 100", "line 1: does not end in a line feed")):
        w = Buf()
        w.record(g.REC_CALIBRATION, struct.pack("<I", 6) + b"tb/bad" + text)
        add(name, w.end(), replay, 1, R + ": calibration record, " + why)
    w = Buf(minor=11)   # the idle launch latency is a 1.12 key
    w.record(g.REC_CALIBRATION, struct.pack("<I", 6) + b"tb/bad" + b"pp.idle_launch_ns = 1000\n")
    add("calibration_idle_1_11", w.end(), replay, 1,
        R + ": calibration record, line 1: pp.idle_launch_ns needs format 1.12 \\(the file is 1.11\\)")
    w = Buf(minor=12)
    w.record(g.REC_CALIBRATION, struct.pack("<I", 6) + b"tb/bad" + b"pp.idle_launch_ns = -1\n")
    add("calibration_idle_value", w.end(), replay, 1, R + ": calibration record, line 1: bad value '-1' for "
        "pp.idle_launch_ns")
    w = Buf()
    w.pipeline(0, 0, "pipeline p\nbuffer b length=0\n")
    add("pipeline_bad_topology", w.end(), replay, 1, R + ": pipeline-launch packet: ")
    # sim.max_ctas holds for what pipelines launch (the reader cannot count those ahead)
    w = Buf()
    w.pipeline(0, 0, open(os.path.join(HERE, "..", "..", "traces", "topologies", "fig1.topo")).read())
    add("pipeline_past_max_ctas", w.end(), replay + " --set sim.max_ctas=10", 1,
        R + r": pipeline 'fig1': a launch of [0-9]+ CTAs of kernel 'K[0-9]' takes the replay past 10 CTAs "
        r"\(sim.max_ctas; 0: no limit\): [0-9]+ launched by pipelines, 0 in the dispatches read")
    # the host model (format 1.10)
    def host(packets=1, call=True, signal=0):
        """A 1.10 trace: thread 0 declared, a kernel, (a call of `packets`,) a dispatch."""
        w = Buf(minor=10)
        w.host_thread(0, 0, "main")
        kernel(w)
        if call:
            w.host_call(0, packets, 10)
        w.dispatch(0, 0, 1, (128, 1, 1), (4, 1, 1), 0, signal=signal)
        return w
    add("host_packet_without_call", host(call=False).end(), replay, 1, R + ": a packet that no host call submits, in "
        "a trace with host threads")
    add("host_call_cut_short", host(packets=2).end(), replay, 1, R + ": the trace ends 1 packet record\\(s\\) short of "
        "what host call record 3 submits")
    w = host(signal=0x40)
    w.host_wait(0, g.WAIT_SIGNAL, 0x41, 5, 0, 0)
    add("host_wait_unknown_signal", w.end(), replay, 1, R + ": host wait for signal 0x41, which is not the completion "
        "signal of any earlier packet")
    w = host()
    w.host_wait(0, g.WAIT_QUEUE, 0, 5, 0, 0)
    w.host_wait(0, g.WAIT_DEVICE, 0, 6, 0, 0, last=True)
    w.host_call(0, 1, 10)
    w.dispatch(0, 7, 1, (128, 1, 1), (4, 1, 1), 0)
    add("host_call_after_last", w.end(), replay, 1, R + ": host call for host thread 0 after the record marked its "
        "last")
    w = Buf(minor=9)
    w.minor = 10   # lets the writer put a 1.10 record in a 1.9 trace: the reader must refuse it
    w.host_thread(0, 0, "main")
    add("host_thread_in_1_9", w.end(), replay, 1, R + r": record type 11 \(host thread\) in a version 1.9 trace")
    # limits reached while running
    w = Buf()
    kernel(w, cta_ps=600 * 10 ** 9)
    w.dispatch(0, 0, 1, (128, 1, 1), (4, 1, 1), 0)
    w.dispatch(0, 0, 1, (128, 1, 1), (4, 1, 1), 0)
    add("run_past_max_sim_time", w.end(), replay + " --set sim.max_sim_time_s=1", 1,
        r"the simulated time reached 1\.200003 s, past sim.max_sim_time_s \(1 s\); stopped after .*nothing written")
    add("run_past_timeout", one(grid=(1 << 28, 1, 1), block=(1, 1, 1)), replay + " --timeout 0.3", 1,
        r"ran past its timeout of 0\.3 s and was stopped after .* CTAs launched.*nothing written")
    # configuration
    add("config_binary", bytes(range(256)) * 4, "replay traces/sample.gdt.gz --quiet --config {F}", 2,
        r"{F}:1: a NUL byte", ext=".cfg")
    add("config_unknown_key", b"gpu.nonsense = 3\n", "replay traces/sample.gdt.gz --quiet --config {F}", 2,
        r"{F}:1: unknown configuration key 'gpu.nonsense'", ext=".cfg")
    add("config_bad_value", b"# a comment\nsm.max_ctas = many\n", "replay traces/sample.gdt.gz --quiet --config {F}", 2,
        r"{F}:2: bad value 'many' for configuration key 'sm.max_ctas'", ext=".cfg")
    w = Buf()
    kernel(w, kid=1, name="k1")
    kernel(w, kid=2, name="k2")
    w.dispatch(0, 0, 1, (128, 1, 1), (4, 1, 1), 0)
    w2 = Buf()  # names of 60,000 bytes: 18 descriptors past 1 MiB
    for kid in range(1, 21):
        kernel(w2, kid=kid, name="n%02d" % kid + "a" * 59997)
    w2.dispatch(0, 0, 1, (128, 1, 1), (4, 1, 1), 0)
    add("descriptor_bytes_past_limit", gz(w2.end()), replay + " --set sim.max_descriptor_mib=1", 1,
        R + r": kernel descriptor id 18: the trace's kernel descriptors would take more than sim.max_descriptor_mib "
            r"\(1 MiB; 18 descriptors", ext=".gdt.gz")
    add("descriptors_past_limit", w.end(), replay + " --set sim.max_kernel_descriptors=1", 1,
        R + ": kernel descriptor id 2: more than sim.max_kernel_descriptors \\(1\\)")
    w = Buf()
    kernel(w)
    w.dispatch(0, 0, 1, (128, 1, 1), (4, 1, 1), 0, signal=0x10)
    w.dispatch(0, 10, 1, (128, 1, 1), (4, 1, 1), 0, signal=0x10)  # the same one again: counted once
    w.dispatch(0, 20, 1, (128, 1, 1), (4, 1, 1), 0, signal=0x20)
    add("signals_past_limit", w.end(), replay + " --set sim.max_signals=1", 1,
        R + ": completion signal 0x20: more than sim.max_signals \\(1\\) distinct")
    add("config_name_escape", b"gpu.name = a\x1b[2Jb\n", "replay traces/sample.gdt.gz --quiet --config {F}", 2,
        r"{F}:1: bad value 'a\?\[2Jb' for configuration key 'gpu.name': expected UTF-8 text", ext=".cfg")
    add("config_name_not_utf8", b"gpu.name = \xff\xfe\n", "replay traces/sample.gdt.gz --quiet --config {F}", 2,
        r"{F}:1: bad value '\?\?' for configuration key 'gpu.name'", ext=".cfg")
    add("config_long_line", b"sm.max_ctas = " + b"9" * 5000 + b"\n", "replay traces/sample.gdt.gz --quiet --config {F}",
        2, r"{F}:1: longer than 1023 bytes", ext=".cfg")
    # per-kernel CTA time rules (sm.cta_time_rules, --cta-time-rules)
    rules = "replay traces/sample.gdt.gz --quiet --cta-time-rules {F}"
    add("rules_no_pattern", b"0.5\n", rules, 1, r"{F}:1: '0\.5' has no pattern: each line is FACTOR PATTERN", ext=".txt")
    add("rules_bad_factor", b"# what-ifs\n2000 *gemm*\n", rules, 1,
        r"{F}:2: bad factor '2000': a decimal from 0\.001 to 1000", ext=".txt")
    add("rules_binary", bytes(range(256)) * 4, rules, 1, r"{F}: a NUL byte: not a rules file", ext=".txt")
    add("rules_none", b"# nothing here\n\n", rules, 1, r"{F}: no rules", ext=".txt")
    add("rules_control", b"0.5 a\x1b[2Jb\n", rules, 1, r"{F}:1: a control character \(byte 0x1b\)", ext=".txt")
    add("rules_missing", None, "replay traces/sample.gdt.gz --quiet --cta-time-rules {T}/none.txt", 1,
        r"none\.txt: cannot open: No such file or directory")
    # command lines
    add("set_overflow", None, "replay traces/sample.gdt.gz --quiet --set sm.max_ctas=99999999999999999999", 2,
        "bad value '99999999999999999999' for configuration key 'sm.max_ctas'")
    add("set_negative", None, "replay traces/sample.gdt.gz --quiet --set sim.max_ctas=-1", 2,
        "bad value '-1' for configuration key 'sim.max_ctas'")
    add("output_is_input", None, "replay traces/sample.gdt.gz --quiet --kernels-csv traces/sample.gdt.gz", 2,
        "is the trace")
    add("condense_onto_itself", GOOD, "condense {F} {F}", 1, "{F}: is the trace being condensed; refusing")
    add("dump_onto_itself", GOOD, "dump {F} -o {F}", 1, "{F}: is the trace being dumped; refusing")
    add("condense_window_negative", None, "condense traces/sample.gdt.gz {T}/c.gdt.gz --window-ns -5", 2,
        "--window-ns '-5'")
    add("condense_window_huge", None, "condense traces/sample.gdt.gz {T}/c.gdt.gz --window-ns 99999999999999999999",
        2, "--window-ns '99999999999999999999'")
    add("timeout_negative", None, "replay traces/sample.gdt.gz --quiet --timeout -1", 2, "--timeout '-1'")
    add("timeout_tiny", None, "replay traces/sample.gdt.gz --quiet --timeout 1e-300", 2,
        r"--timeout '1e-300': seconds, from 0\.001 to 10\^7")
    return c


def _two_submits(a, b):
    w = Buf()
    kernel(w)
    w.dispatch(0, a, 1, (128, 1, 1), (4, 1, 1), 0)
    w.dispatch(0, b, 1, (128, 1, 1), (4, 1, 1), 0)
    return w.end()


def _reference(ref_num):
    w = Buf(minor=5)
    kernel(w)
    w.dispatch(0, 0, 1, (128, 1, 1), (4, 1, 1), 0)
    data = w.end()
    d = first_of(data, g.REC_DISPATCH)
    data = patched(data, d + 2, "<H", 1)          # flags bit 0: a reference packet
    return patched(data, d + 16 + 10, "<H", ref_num)  # AQL reserved0: its ref_num


def main(out=HERE):
    lines = ["# name\tcommand (after gdsim; {F}: the file, {T}: a folder)\texit\tpattern (grep -E) of stderr\n"]
    for name, data, cmd, status, pattern in cases():
        if data is not None:
            with open(os.path.join(out, name), "wb") as f:
                f.write(data)
        lines.append("%s\t%s\t%d\t%s\n" % (name, cmd, status, pattern))
    with open(os.path.join(out, "cases.tsv"), "w") as f:
        f.writelines(lines)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else HERE)
