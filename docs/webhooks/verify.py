import base64
import hashlib
import hmac
import json
import time

# Deliveries older or newer than this are refused: a captured request cannot be replayed later.
TOLERANCE_SECONDS = 5 * 60


def verify_parley_webhook(secret: str, headers: dict, body: bytes) -> dict:
    """Checks a Parley event notification and returns its event.

    `headers` are the request's (lower-case names), `body` the raw bytes exactly as received.
    Raises ValueError when the request is not a genuine, fresh delivery.
    """
    msg_id = headers.get("webhook-id")
    timestamp = headers.get("webhook-timestamp")
    signatures = headers.get("webhook-signature")
    if not msg_id or not timestamp or not signatures:
        raise ValueError("missing webhook-id, webhook-timestamp or webhook-signature")
    if not timestamp.isdigit() or abs(time.time() - int(timestamp)) > TOLERANCE_SECONDS:
        raise ValueError("timestamp outside the replay window")
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{msg_id}.{timestamp}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    for entry in signatures.split(" "):
        version, _, signature = entry.partition(",")
        if version == "v1" and hmac.compare_digest(signature, expected):
            # The same event may arrive more than once (a retry after a lost answer): act on each webhook-id once.
            return json.loads(body)
    raise ValueError("invalid signature")
