"""A partner's back end in Python (Flask), server first.

Your server starts each verification for one of its accounts, renders the page
that embeds <kyc-onboard> with the client secret, and trusts only what it can
check itself: a signed webhook, a signed result token, and the record it reads
back from the worker's /v1 API. It never acts on what a browser says.

Routes:
  GET  /accounts/<ref>/verify   the page: starts a verification for the
                                account, or resumes the one under way
  POST /kyc/webhooks            Standard Webhooks, verified with hmac
  POST /kyc/result-token        the page hands over kyc-complete's resultToken
  GET  /accounts/<ref>          this example's KYC record of the account (JSON)

Settings (environment):
  KYC_URL            the worker's origin, e.g. https://kyc.example.com
  KYC_SERVER_KEY     this partner's server key (kyc_sk_live_..., or kyc_sk_test_... with the sandbox)
  KYC_WEBHOOK_SECRET the webhook secret (whsec_...)
  APP_ORIGIN         this site's origin: the result token's audience
  KYC_TEST_MODE=1    accept livemode: false (the sandbox); never in production

Only the standard library, Flask and PyJWT (Debian: python3-flask, python3-jwt,
python3-cryptography). Webhook signatures are checked with hmac in a dozen
lines (verify_webhook) rather than the `standardwebhooks` package, which
Debian does not ship; the package does the same.
"""

import base64
import hashlib
import hmac
import json
import os
import threading
import time
import urllib.error
import urllib.request

import jwt
from flask import Flask, abort, jsonify, make_response, request

KYC_URL = os.environ.get("KYC_URL", "http://127.0.0.1:8787").rstrip("/")
SERVER_KEY = os.environ.get("KYC_SERVER_KEY", "")
WEBHOOK_SECRET = os.environ.get("KYC_WEBHOOK_SECRET", "")
APP_ORIGIN = os.environ.get("APP_ORIGIN", "http://127.0.0.1:8790").rstrip("/")
TEST_MODE = os.environ.get("KYC_TEST_MODE") == "1"
WEBHOOK_TOLERANCE_SECONDS = 5 * 60
# Statuses under which the page can be given the same client secret again.
RESUMABLE = {"created", "open", "requires_input"}

app = Flask(__name__)

# This example keeps its records in memory; yours go in your database.
_lock = threading.Lock()
accounts = {}  # customerRef -> {"verificationId", "status", "outcome", "verified", "checkStatus", "person", "entityId", "sequence"}
by_verification = {}  # verificationId -> customerRef (only verifications this server started)
seen_webhooks = set()  # webhook-id values already handled (a retry may repeat one)


# --- the worker's /v1 API ----------------------------------------------------


class KycError(Exception):
    def __init__(self, status, body):
        super().__init__(f"{status} {body.get('errorCode', '')}")
        self.status = status
        self.body = body


def kyc(method, path, body=None, idempotency_key=None):
    """One /v1 call with this partner's server key; the answer as a dict."""
    headers = {"Authorization": f"Bearer {SERVER_KEY}"}
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    if idempotency_key:
        headers["Idempotency-Key"] = idempotency_key
    req = urllib.request.Request(KYC_URL + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=15) as res:
            return json.load(res)
    except urllib.error.HTTPError as err:
        raise KycError(err.code, json.load(err)) from None


def refuse_test_outcomes(livemode):
    """A sandbox outcome (livemode false) never passes for a real one, outside a test setup."""
    if livemode is False and not TEST_MODE:
        abort(400, "livemode false: a sandbox outcome, refused outside test mode")


def read_back(verification_id):
    """The verified record, read from the worker: never from a browser."""
    record = kyc("GET", f"/v1/verifications/{verification_id}")
    refuse_test_outcomes(record.get("livemode"))
    if record["status"] == "final":
        record = kyc("GET", f"/v1/verifications/{verification_id}?include=person")
    return record


def store(customer_ref, record):
    with _lock:
        account = accounts.setdefault(customer_ref, {})
        if account.get("verificationId") not in (None, record["verificationId"]):
            return  # an earlier verification of the account: the current one decides
        account.update(
            verificationId=record["verificationId"],
            status=record["status"],
            # Decide from `status` and `result` (the outcome in the worker's words, whichever vendor);
            # checkStatus is the vendor's word, deprecated.
            outcome=(record.get("result") or {}).get("outcome"),
            verified=record["status"] == "final" and (record.get("result") or {}).get("outcome") == "verified",
            checkStatus=record.get("checkStatus"),
            entityId=record.get("entityId") or account.get("entityId"),
            person=record.get("person"),
        )


# --- the page ----------------------------------------------------------------


def start_or_resume(customer_ref):
    """The verification the page should show: the one under way, else a new one."""
    with _lock:
        account = dict(accounts.get(customer_ref, {}))
    if account.get("verificationId"):
        current = kyc("GET", f"/v1/verifications/{account['verificationId']}")
        if current["status"] in RESUMABLE and current.get("clientSecret"):
            return current
    body = {"customerRef": customer_ref}
    # A returning person stays one entity at the vendor (docs/server-api.md, "Returning people").
    if account.get("entityId"):
        body["entityId"] = account["entityId"]
    key = f"start-{customer_ref}-{account.get('verificationId', 'first')}"
    started = kyc("POST", "/v1/verifications", body, idempotency_key=key)
    with _lock:
        by_verification[started["verificationId"]] = customer_ref
        accounts.setdefault(customer_ref, {}).update(
            verificationId=started["verificationId"], status=started["status"], checkStatus=None, person=None, sequence=0
        )
    return started


def script_json(value):
    """JSON safe inside a <script> element: no '</script>' or '<!--' can close it."""
    return json.dumps(value).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


@app.get("/accounts/<customer_ref>/verify")
def verify_page(customer_ref):
    # In your app the account comes from the logged-in session, never from the URL.
    verification = start_or_resume(customer_ref)
    config = {"endpoint": f"{KYC_URL}/api", "clientSecret": verification["clientSecret"]}
    html = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Verify your identity</title>
<script type="module" src="{KYC_URL}/widget.js"></script></head>
<body>
<kyc-onboard id="kyc"></kyc-onboard>
<script type="application/json" id="kyc-config">{script_json(config)}</script>
<script type="module">
  const config = JSON.parse(document.getElementById('kyc-config').textContent);
  const kyc = document.getElementById('kyc');
  kyc.setAttribute('endpoint', config.endpoint);
  kyc.clientSecret = config.clientSecret;
  kyc.addEventListener('kyc-complete', (e) =>
    fetch('/kyc/result-token', {{ method: 'POST', headers: {{ 'Content-Type': 'application/json' }},
      body: JSON.stringify({{ resultToken: e.detail.resultToken }}) }}));
</script>
</body></html>"""
    res = make_response(html)
    # The page holds a client secret: no cache, shared or private, may keep it.
    res.headers["Cache-Control"] = "no-store"
    res.headers["Referrer-Policy"] = "no-referrer"
    return res


# --- webhooks ----------------------------------------------------------------


def verify_webhook(secret, headers, body, now=None):
    """Standard Webhooks: HMAC-SHA256 over "id.timestamp.body" with the secret's bytes; True or raises ValueError."""
    msg_id = headers.get("webhook-id", "")
    timestamp = headers.get("webhook-timestamp", "")
    signatures = headers.get("webhook-signature", "")
    if not (msg_id and timestamp.isdigit() and signatures):
        raise ValueError("missing webhook headers")
    if abs((now if now is not None else time.time()) - int(timestamp)) > WEBHOOK_TOLERANCE_SECONDS:
        raise ValueError("timestamp outside the tolerance")
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{msg_id}.{timestamp}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    for candidate in signatures.split(" "):
        version, _, sig = candidate.partition(",")
        if version == "v1" and hmac.compare_digest(sig, expected):
            return True
    raise ValueError("no valid signature")


@app.post("/kyc/webhooks")
def webhooks():
    body = request.get_data()
    try:
        verify_webhook(WEBHOOK_SECRET, request.headers, body)
    except ValueError:
        abort(400)
    event = json.loads(body)
    data = event["data"]
    refuse_test_outcomes(data.get("livemode"))
    webhook_id = request.headers["webhook-id"]
    with _lock:
        if webhook_id in seen_webhooks:
            return "", 204  # a retry of one already handled
        # Matched by the verification this server started, never by data.customerRef.
        customer_ref = by_verification.get(data["verificationId"])
        if customer_ref is None:
            return "", 204  # not ours to act on (e.g. a page-started verification)
        account = accounts[customer_ref]
        seen_webhooks.add(webhook_id)
        if account.get("verificationId") != data["verificationId"]:
            return "", 204  # an earlier verification of the account: the current one decides
        if data["sequence"] < account.get("sequence", 0):
            return "", 204  # older than what was recorded
        account["sequence"] = data["sequence"]
    # The event says something changed; the record read back says what.
    store(customer_ref, read_back(data["verificationId"]))
    with _lock:
        accounts[customer_ref]["lastEvent"] = event["type"]
    return "", 204


# --- result tokens -----------------------------------------------------------

jwks = jwt.PyJWKClient(f"{KYC_URL}/.well-known/jwks.json", cache_keys=True, lifespan=300)


def verify_result_token(token):
    """The claims of a result token made by this worker for this site; raises jwt.InvalidTokenError otherwise."""
    header = jwt.get_unverified_header(token)
    if header.get("typ") != "kyc-result+jwt":
        raise jwt.InvalidTokenError("not a kyc-onboard result token (typ)")
    signing_key = jwks.get_signing_key_from_jwt(token)
    claims = jwt.decode(
        token,
        signing_key.key,
        algorithms=["ES256"],
        issuer=KYC_URL,
        audience=APP_ORIGIN,
        options={"require": ["exp", "iat", "sub", "iss", "aud"]},
    )
    if claims.get("livemode") is False and not TEST_MODE:
        raise jwt.InvalidTokenError("livemode false: a sandbox outcome")
    if header.get("kid", "").startswith("sandbox-") and not TEST_MODE:
        raise jwt.InvalidTokenError("a sandbox signing key")
    return claims


@app.post("/kyc/result-token")
def result_token():
    payload = request.get_json(silent=True) or {}
    try:
        claims = verify_result_token(str(payload.get("resultToken", "")))
    except jwt.InvalidTokenError:
        abort(400)
    with _lock:
        customer_ref = by_verification.get(claims["sub"])
    # In your app: also check that this is the logged-in session's account.
    if customer_ref is None:
        abort(404)
    store(customer_ref, read_back(claims["sub"]))
    return jsonify(
        verificationId=claims["sub"],
        outcome=(claims.get("result") or {}).get("outcome"),
        checkStatus=claims["check_status"],
        customerRef=customer_ref,
    )


@app.get("/accounts/<customer_ref>")
def account(customer_ref):
    with _lock:
        found = accounts.get(customer_ref)
        return jsonify(found) if found else (jsonify(error="no such account"), 404)


if __name__ == "__main__":
    host, _, port = APP_ORIGIN.removeprefix("http://").removeprefix("https://").partition(":")
    app.run(host="127.0.0.1", port=int(port or 8790))
