// The secrets the hostile fixture plants, one per redaction rule, and the
// innocent look-alikes that must be kept. Served to the page as /secrets.js;
// the test then searches the database file and its WAL for every one of them.

// Keys whose values are redacted wherever they appear (JSON, logged objects, forms, URLs).
const keys = [
  "password", "secret", "passwd", "api_key", "apikey", "auth", "credentials", "mysql_pwd", "privatekey",
  "private_key", "token", "bearer", "session", "sid", "pwd", "pass", "cookie", "jwt", "otp", "pin", "ssn",
  "sig", "signature", "authorization", "client_secret", "refresh_token", "cvc", "cvv", "card_number",
  "passcode", "pw", "subscriptionKey", "encryption_key", "signing_key", "mfaCode", "recovery_codes",
];

// Values that are secrets under any key (planted under innocent ones).
const values = {
  jwt: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJnYXNvbGluZS1qd3QifQ.R2FzSnd0U2lnbmF0dXJlMQ",
  jwt2: "eyJhbGciOiJSUzI1NiJ9.eyJ1c2VyIjoiaGVhZGVyLWp3dCJ9.SGVhZGVySnd0U2ln",
  bearerToken: "GasBearerToken1234567890",
  bearer: "Bearer GasBearerInText0987654321",
  aws: "AKIAGASOLINETEST1234",
  stripe: "sk_live_GasolineStripeKey1234",
  stripeRestricted: "rk_live_GasolineRestricted9876",
  github: "ghp_GasolineGithubToken0123456789abcdefgh",
  githubPat: "github_pat_11GASOLINE0_GasolinePatSecret01234",
  slack: "xoxb-2222-GasolineSlackToken",
  google: "AIzaGasolineGoogleKey_0123456789abcdefg",
  pem: "-----BEGIN RSA PRIVATE KEY-----\nGASOLINEPEMSECRETBODY0123\n-----END RSA PRIVATE KEY-----",
  card: "5555 5555 5555 4444",
  slackWebhook: "https://hooks.slack.com/services/T0GASOLINE/B0GASOLINE/GasolineWebhookSecret01",
};

export const SECRETS = {
  keys,
  values,
  orderNumber: "4111111111111112", // 16 digits, fails Luhn: kept
  bigSize: 50 * 1024 * 1024,
};

/** Every string that must never reach the database. */
export function plantedSecrets() {
  const places = ["con", "json"];
  const byKey = places.flatMap((place) => keys.map((k) => `S-${place}-${k}`));
  const byValue = Object.entries(values).map(([rule, v]) =>
    rule === "pem"
      ? "GASOLINEPEMSECRETBODY0123"
      : rule === "bearer"
        ? "GasBearerInText0987654321"
        : rule === "slackWebhook"
          ? "GasolineWebhookSecret01"
          : v,
  );
  const elsewhere = [
    "S-first-custom", "S-exc-token", "S-query-api_key", "S-query-amzsig", "S-query-amzcred", "S-query-sig",
    "S-form-pct", "S-form-brk", "S-form-code", "S-form-key", "S-jis-client_secret", "S-hdr-xauth", "S-hdr-apikey",
    "S-gql-inline", "S-gql-var", "S-multipart-password", "S-resp-access_token", "S-userinfo-pass", "S-xhr-session",
    "S-xhr-ssn", "S-wsurl-token", "S-ws-password", "S-page-code", "S-page-fragment", "5555555555554444",
    "S-hdr-apim", "S-hdr-functions", "S-hdr-honeycomb", "S-persisted-token", "S-shown-password", "S-placeholder-passcode",
    "S-map-password", "S-pair-apikey", "S-named-token",
  ];
  return [...byKey, ...byValue, ...elsewhere];
}
