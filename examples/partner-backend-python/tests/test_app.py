"""The example against a running worker with the sandbox as its vendor (`npm start`).

The worker must know this app as its environment partner (test/e2e/python-example.test.ts
starts both this way):
  ALLOWED_ORIGINS=$APP_ORIGIN  PARTNER_SERVER_KEYS=$KYC_SERVER_KEY
  WEBHOOK_URL=$APP_ORIGIN/kyc/webhooks  WEBHOOK_SECRET=$KYC_WEBHOOK_SECRET  npm start
Run: KYC_URL=... KYC_SERVER_KEY=... KYC_WEBHOOK_SECRET=... APP_ORIGIN=http://127.0.0.1:<port> \
     KYC_TEST_MODE=1 python3 -m unittest discover -s examples/partner-backend-python/tests

Each test plays the person's browser with the requests the widget makes
(/api/onboarding-link, /api/result, from the app's origin), and the sandbox's
outcome route plays the vendor's hosted flow.
"""

import base64
import hashlib
import hmac
import json
import os
import re
import sys
import threading
import time
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
import app as example  # noqa: E402  (after the path)
from werkzeug.serving import make_server  # noqa: E402

KYC_URL = example.KYC_URL
APP_ORIGIN = example.APP_ORIGIN
PERSON = {
    "name": {"givenName": "Ada", "familyName": "Lovelace"},
    "dateOfBirth": "1990-12-10",
    "phone": {"code": "+61", "number": "0412 345 678"},
    "consent": True,
}


def http(method, url, body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=15) as res:
            return res.status, res.headers, res.read()
    except urllib.error.HTTPError as err:
        return err.code, err.headers, err.read()


def browser(path, body):
    """A request as the widget makes it, from the partner's page."""
    status, _, raw = http("POST", KYC_URL + path, body, {"Origin": APP_ORIGIN})
    return status, json.loads(raw)


def vendor_finishes(verification_id, check_status):
    """The sandbox ends the hosted flow with this outcome (as `npm run sandbox -- complete`)."""
    status, _, raw = http("POST", f"{KYC_URL}/sandbox/verifications/{verification_id}/complete", {"status": check_status})
    assert status == 200, raw


def page(customer_ref):
    status, headers, raw = http("GET", f"{APP_ORIGIN}/accounts/{customer_ref}/verify")
    assert status == 200, raw
    html = raw.decode()
    config = json.loads(re.search(r'<script type="application/json" id="kyc-config">(.*?)</script>', html).group(1))
    return headers, config


def wait_for(customer_ref, predicate, what, seconds=30):
    deadline = time.time() + seconds
    record = None
    while time.time() < deadline:
        status, _, raw = http("GET", f"{APP_ORIGIN}/accounts/{customer_ref}")
        record = json.loads(raw) if status == 200 else None
        if record and predicate(record):
            return record
        time.sleep(0.2)
    raise AssertionError(f"{what}: not within {seconds} s; the record is {record}")


class PartnerBackend(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        port = int(APP_ORIGIN.rsplit(":", 1)[1])
        cls.server = make_server("127.0.0.1", port, example.app, threaded=True)
        threading.Thread(target=cls.server.serve_forever, daemon=True).start()

    @classmethod
    def tearDownClass(cls):
        cls.server.shutdown()

    def test_create_resume_webhook_token_and_read_back(self):
        # Create: the page carries the client secret in a JSON block, never cached.
        headers, config = page("acct-py-1")
        self.assertEqual(headers["Cache-Control"], "no-store")
        secret = config["clientSecret"]
        verification_id = secret.split("_secret_")[0]
        self.assertRegex(verification_id, r"^vrf_[0-9A-Z]{26}$")
        # Resume: the same page again gives the same verification, not a second one.
        self.assertEqual(page("acct-py-1")[1]["clientSecret"], secret)

        status, link = browser("/api/onboarding-link", {"clientSecret": secret, **PERSON})
        self.assertEqual(status, 200, link)
        self.assertEqual(link["verificationId"], verification_id)
        self.assertEqual(page("acct-py-1")[1]["clientSecret"], secret, "an open verification resumes too")
        vendor_finishes(verification_id, "CHECKED_SUCCESS_CLEAR")

        # Webhook: signed, verified with hmac, matched by verificationId; then the record is read back.
        record = wait_for("acct-py-1", lambda r: r.get("lastEvent") == "verification.completed", "the completed webhook")
        self.assertEqual(record["status"], "final")
        self.assertEqual(record["checkStatus"], "CHECKED_SUCCESS_CLEAR")
        self.assertEqual(record["person"]["name"]["familyName"], "Lovelace")
        self.assertEqual(record["person"]["dateOfBirth"]["dateOfBirth"], "1990-12-10")

        # Token: what kyc-complete carries, verified with PyJWKClient (typ, ES256, iss, aud, exp).
        status, result = browser("/api/result", {"clientSecret": secret})
        self.assertEqual(status, 200, result)
        token = result["resultToken"]
        claims = example.verify_result_token(token)
        self.assertEqual(claims["sub"], verification_id)
        self.assertEqual(claims["check_status"], "CHECKED_SUCCESS_CLEAR")
        self.assertIs(claims["livemode"], False)
        status, _, raw = http("POST", f"{APP_ORIGIN}/kyc/result-token", {"resultToken": token})
        self.assertEqual(status, 200, raw)
        self.assertEqual(json.loads(raw)["customerRef"], "acct-py-1")

        # A final verification is not resumed: the account's next page starts a new one.
        self.assertNotEqual(page("acct-py-1")[1]["clientSecret"], secret)

    def test_no_match_then_a_second_attempt_on_the_same_verification(self):
        _, config = page("acct-py-2")
        secret = config["clientSecret"]
        verification_id = secret.split("_secret_")[0]
        self.assertEqual(browser("/api/onboarding-link", {"clientSecret": secret, **PERSON})[0], 200)
        vendor_finishes(verification_id, "NO_MATCH")
        record = wait_for("acct-py-2", lambda r: r.get("lastEvent") == "verification.requires_input", "requires_input")
        self.assertEqual(record["status"], "requires_input")

        # The person comes back: the same secret, a second attempt, and this time a match.
        self.assertEqual(page("acct-py-2")[1]["clientSecret"], secret)
        status, link = browser("/api/onboarding-link", {"clientSecret": secret, **PERSON})
        self.assertEqual(status, 200, link)
        vendor_finishes(verification_id, "CHECKED_SUCCESS_CLEAR")
        record = wait_for("acct-py-2", lambda r: r.get("checkStatus") == "CHECKED_SUCCESS_CLEAR", "the second attempt's outcome")
        self.assertEqual(record["verificationId"], verification_id)
        attempts = example.kyc("GET", f"/v1/verifications/{verification_id}")["attempts"]
        self.assertEqual(len(attempts), 2, attempts)

    def test_a_failed_check_then_a_fresh_verification_for_the_same_entity(self):
        _, config = page("acct-py-3")
        first = config["clientSecret"].split("_secret_")[0]
        self.assertEqual(browser("/api/onboarding-link", {"clientSecret": config["clientSecret"], **PERSON})[0], 200)
        vendor_finishes(first, "CHECKED_FAILED")
        record = wait_for("acct-py-3", lambda r: r.get("checkStatus") == "CHECKED_FAILED", "the failed check")
        self.assertEqual(record["status"], "final")
        entity_id = record["entityId"]
        self.assertTrue(entity_id)

        # CHECKED_FAILED is final: a new try is a new verification, for the same entity at the vendor.
        _, again = page("acct-py-3")
        second = again["clientSecret"].split("_secret_")[0]
        self.assertNotEqual(second, first)
        self.assertEqual(browser("/api/onboarding-link", {"clientSecret": again["clientSecret"], **PERSON})[0], 200)
        vendor_finishes(second, "CHECKED_SUCCESS_CLEAR")
        record = wait_for("acct-py-3", lambda r: r.get("checkStatus") == "CHECKED_SUCCESS_CLEAR", "the fresh verification")
        self.assertEqual(record["verificationId"], second)
        self.assertEqual(record["entityId"], entity_id, "one person stays one entity")

    def test_a_forged_or_replayed_webhook_is_refused(self):
        body = json.dumps({"type": "verification.completed", "data": {"verificationId": "vrf_X", "sequence": 9}}).encode()
        now = int(time.time())
        key = base64.b64decode(example.WEBHOOK_SECRET.removeprefix("whsec_"))

        def signed(msg_id, ts, payload, k=key):
            sig = base64.b64encode(hmac.new(k, f"{msg_id}.{ts}.".encode() + payload, hashlib.sha256).digest()).decode()
            return {"webhook-id": msg_id, "webhook-timestamp": str(ts), "webhook-signature": f"v1,{sig}"}

        self.assertTrue(example.verify_webhook(example.WEBHOOK_SECRET, signed("msg_1", now, body), body))
        for headers, why in [
            (signed("msg_1", now, body, k=b"another secret"), "another secret"),
            (signed("msg_1", now - 600, body), "ten minutes old"),
            ({**signed("msg_1", now, body), "webhook-id": "msg_2"}, "another id"),
        ]:
            with self.assertRaises(ValueError, msg=why):
                example.verify_webhook(example.WEBHOOK_SECRET, headers, body)
        status, _, _ = http("POST", f"{APP_ORIGIN}/kyc/webhooks", None, signed("msg_1", now, b"{}"))
        self.assertEqual(status, 400)

    def test_a_token_of_another_type_is_refused(self):
        import jwt

        # Signed by an ES256 key the worker never published, and not a result token by its header.
        from cryptography.hazmat.primitives.asymmetric import ec

        key = ec.generate_private_key(ec.SECP256R1())
        token = jwt.encode({"sub": "vrf_X"}, key, algorithm="ES256", headers={"typ": "JWT", "kid": "k-1"})
        with self.assertRaisesRegex(jwt.InvalidTokenError, "typ"):
            example.verify_result_token(token)
        status, _, _ = http("POST", f"{APP_ORIGIN}/kyc/result-token", {"resultToken": token})
        self.assertEqual(status, 400)


if __name__ == "__main__":
    unittest.main()
