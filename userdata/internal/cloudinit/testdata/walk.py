# Reads one JSON document per line on stdin, {"doc": "<userData>"}, and
# writes one JSON line per document: the parts cloud-init hands to its
# handlers, as cloudinit/handlers/__init__.py walk() lists them (every part
# of the message but the multipart containers), each with its content type,
# file name and payload as util.fully_decoded_payload returns it.
#
# With cloud-init importable (Debian's cloud-init package), the message is
# read by cloud-init's own user_data.convert_string; otherwise by
# email.message_from_string, which is what convert_string calls.
import base64
import email
import json
import sys

try:
    from cloudinit import user_data, util

    def read(doc):
        return user_data.convert_string(doc.encode("utf-8"))

    def payload(part):
        return util.fully_decoded_payload(part)

    READER = "cloud-init"
except ImportError:

    def read(doc):
        return email.message_from_string(doc)

    def payload(part):
        # util.fully_decoded_payload, for parsed messages (no charset set)
        value = part.get_payload(decode=True)
        if part.get_content_maintype() == "text" and isinstance(value, bytes):
            return value.decode("utf-8", "surrogateescape")
        return value

    READER = "email"


def describe(part):
    value = payload(part)
    out = {
        "type": part.get_content_type(),
        "filename": part.get_filename() or "",
        "body": None,
        "unwritable": False,
    }
    if isinstance(value, str):
        try:
            value = value.encode("utf-8")  # util.write_file's encode_text
        except UnicodeEncodeError:
            out["unwritable"] = True
            return out
    if value is not None:
        out["body"] = base64.b64encode(value).decode("ascii")
    return out


print(json.dumps({"reader": READER}), flush=True)
for line in sys.stdin:
    msg = read(json.loads(line)["doc"])
    parts = [describe(p) for p in msg.walk() if p.get_content_maintype() != "multipart"]
    print(json.dumps({"parts": parts}), flush=True)
