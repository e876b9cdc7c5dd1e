// Package cloudinit models how cloud-init turns userData into the scripts
// it runs, and in what order: MIME parts as Python's email parser reads
// them ([Parts], on internal/pyemail; nested multiparts flattened),
// each part's type (its Content-Type, or its first line for text/plain),
// its file name (Content-Disposition filename, else part-NNN by position),
// CRLF conversion, #cloud-boothook parts, #cloud-config bootcmd and runcmd,
// and the per-boot/per-instance/per-once script types. It follows
// cloud-init 22.4.2 and notes where AL2's 19.3 differs ([Script.MayNotRun]);
// parts whose effect cannot be known offline (#include, jinja templates,
// part handlers, archives, gzip parts, cloud-config it does not model) are
// returned as [Opaque].
//
// Sources (canonical/cloud-init at 22.4.2 unless noted):
// cloudinit/user_data.py (_process_msg: type detection, _process_before_attach:
// part-NNN naming), cloudinit/handlers/__init__.py (INCLUSION_TYPES_MAP,
// type_from_starts_with), cloudinit/handlers/shell_script.py and
// boot_hook.py (util.dos2unix), cloudinit/config/cc_runcmd.py and
// cc_bootcmd.py (util.shellify), cloudinit/subp.py (runparts: sorted file
// names).
//
// [Plan] is pure and safe for concurrent use.
package cloudinit
