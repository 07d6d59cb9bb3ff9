import { expect, type APIRequestContext } from "@playwright/test";
import { TEST_ADMIN } from "./test-server";

/** Signs in over the API as the test administrator; the page of the same browser context shares the cookie. */
export async function signInApi(request: APIRequestContext) {
  const res = await request.post("/api/login", { data: TEST_ADMIN });
  expect(res.status()).toBe(200);
}
