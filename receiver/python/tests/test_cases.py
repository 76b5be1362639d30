"""The shared cases (receiver/cases.json) against ``receive_delivery``, in-process: the statuses, error codes,
fields and typed deliveries every kit gives (tests/receiver/kits.test.ts sends the same cases over HTTP)."""

import json
import unittest

from support import ACCEPTED_TOKENS, CASES, body_of, fails_the_handler, query_of, summarize

from pulumi_helpdesk_receiver import Accepted, receive_delivery


class SharedCases(unittest.TestCase):
    def test_cases_are_read(self) -> None:
        # A run that read no case would pass every loop below.
        self.assertGreaterEqual(len(CASES["cases"]), 40)

    def test_each_case(self) -> None:
        for case in CASES["cases"]:
            with self.subTest(case["name"]):
                reception = receive_delivery(
                    case["method"], query_of(case), case.get("contentType"), body_of(case), ACCEPTED_TOKENS
                )
                expect = case["expect"]
                if isinstance(reception, Accepted):
                    if fails_the_handler(reception.delivery):
                        self.assertEqual(expect["status"], 500)
                        continue
                    self.assertEqual(reception.status, expect["status"])
                    self.assertEqual(
                        json.loads(json.dumps(summarize(reception.delivery, reception.token_index))), expect["delivered"]
                    )
                else:
                    self.assertEqual((reception.status, reception.error), (expect["status"], expect["error"]))
                    self.assertEqual(reception.field, expect.get("field"))
                    shown = json.loads(reception.body())
                    self.assertEqual(shown["error"], expect["error"])
                    for token in CASES["tokens"].values():
                        self.assertNotIn(token, reception.body().decode("utf-8"))


if __name__ == "__main__":
    unittest.main()
