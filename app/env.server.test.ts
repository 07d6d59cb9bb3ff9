import path from "node:path";
import { describe, expect, it } from "vitest";
import { InvalidEnvironmentError, describeTrustProxy, getPublicEnv, parseEnv, passedListenSocket } from "./env.server";

describe("parseEnv", () => {
  it("has working defaults", () => {
    const env = parseEnv({});
    expect(env.PORT).toBe(3000);
    expect(env.HOST).toBe("0.0.0.0");
    expect(env.DATA_DIR).toBe(path.resolve("./data"));
    expect(env.SITE_URL).toBe("http://localhost:3000");
    expect(env.TRUST_PROXY).toBe(false);
    expect(env.NODE_ENV).toBe("production");
  });

  it("enquiry photos' caps and retention have defaults, and a wrong value says how to fix it", () => {
    const env = parseEnv({});
    expect([env.ENQUIRY_PHOTOS_PER_DAY, env.ENQUIRY_PHOTOS_MAX_MB, env.ENQUIRY_PHOTO_DAYS]).toEqual([50, 2048, 365]);
    expect(
      parseEnv({ ENQUIRY_PHOTOS_PER_DAY: "0", ENQUIRY_PHOTOS_MAX_MB: "100", ENQUIRY_PHOTO_DAYS: "90" }),
    ).toMatchObject({
      ENQUIRY_PHOTOS_PER_DAY: 0,
      ENQUIRY_PHOTOS_MAX_MB: 100,
      ENQUIRY_PHOTO_DAYS: 90,
    });
    expect(() => parseEnv({ ENQUIRY_PHOTOS_PER_DAY: "lots" })).toThrow(
      "ENQUIRY_PHOTOS_PER_DAY: ENQUIRY_PHOTOS_PER_DAY must be a whole number of photos, such as 50 (0 takes no photos)",
    );
    expect(() => parseEnv({ ENQUIRY_PHOTOS_MAX_MB: "-1" })).toThrow(
      "ENQUIRY_PHOTOS_MAX_MB must be 0 (no photos) or more",
    );
    expect(() => parseEnv({ ENQUIRY_PHOTO_DAYS: "0" })).toThrow("ENQUIRY_PHOTO_DAYS must be at least 1");
    expect(() => parseEnv({ ENQUIRY_PHOTO_DAYS: "1.5" })).toThrow(
      "ENQUIRY_PHOTO_DAYS must be a whole number of days, such as 365",
    );
  });

  it("reads and normalises values", () => {
    const env = parseEnv({ PORT: "8080", SITE_URL: "https://stone.example.nz/", TRUST_PROXY: "1", DATA_DIR: "/tmp/x" });
    expect(env.PORT).toBe(8080);
    expect(env.SITE_URL).toBe("https://stone.example.nz");
    expect(env.TRUST_PROXY).toBe(1);
    expect(env.DATA_DIR).toBe("/tmp/x");
    expect(parseEnv({ TRUST_PROXY: "loopback" }).TRUST_PROXY).toBe("loopback");
    expect(parseEnv({ TRUST_PROXY: "loopback, 10.0.0.0/8, 2001:db8::1" }).TRUST_PROXY).toBe(
      "loopback, 10.0.0.0/8, 2001:db8::1",
    );
    expect(parseEnv({ TRUST_PROXY: "0" }).TRUST_PROXY).toBe(false);
  });

  it("refuses TRUST_PROXY=true (any client could write its own address) and says what to set instead", () => {
    expect(() => parseEnv({ TRUST_PROXY: "true" })).toThrow(InvalidEnvironmentError);
    expect(() => parseEnv({ TRUST_PROXY: "true" })).toThrow(
      /TRUST_PROXY=true would believe any client's X-Forwarded-For/,
    );
    expect(() => parseEnv({ TRUST_PROXY: "true" })).toThrow(/loopback, an IP .*, or a CIDR .*hop count/);
    expect(() => parseEnv({ TRUST_PROXY: "my-proxy" })).toThrow(/TRUST_PROXY "my-proxy" is not a list of addresses/);
  });

  it("refuses a TRUST_PROXY hop count above 3 (a client could choose its own address), and says why", () => {
    expect(parseEnv({ TRUST_PROXY: "3" }).TRUST_PROXY).toBe(3);
    expect(() => parseEnv({ TRUST_PROXY: "4" })).toThrow(InvalidEnvironmentError);
    expect(() => parseEnv({ TRUST_PROXY: "100" })).toThrow(
      /TRUST_PROXY=100 trusts more hops than any real set-up has \(at most 3\)/,
    );
    expect(() => parseEnv({ TRUST_PROXY: "100" })).toThrow(/lets a client choose its own address/);
    expect(() => parseEnv({ TRUST_PROXY: "100" })).toThrow(/Set the real number of proxies \(usually 1\)/);
  });

  it("describes, for the start-up log, whose X-Forwarded-For is trusted", () => {
    expect(describeTrustProxy(false)).toMatch(/X-Forwarded-For is ignored/);
    expect(describeTrustProxy(1)).toMatch(/last 1 hop\(s\) of X-Forwarded-For are trusted/);
    expect(describeTrustProxy("loopback")).toMatch(/trusted only from loopback/);
  });

  it("applies ADMIN_PASSWORD to an existing administrator only with ADMIN_PASSWORD_RESET=1", () => {
    expect(parseEnv({}).ADMIN_PASSWORD_RESET).toBe(false);
    expect(parseEnv({ ADMIN_PASSWORD: "a long password", ADMIN_PASSWORD_RESET: "1" }).ADMIN_PASSWORD_RESET).toBe(true);
  });

  it.each([
    [{ PORT: "eighty" }, /PORT/],
    [{ PORT: "70000" }, /PORT must be between 1 and 65535/],
    [{ SITE_URL: "not a url" }, /SITE_URL must be an absolute URL/],
    [{ ADMIN_USERNAME: "boss" }, /ADMIN_PASSWORD/],
    [{ ADMIN_PASSWORD: "short" }, /at least 8 characters/],
    [{ LOG_LEVEL: "loud" }, /LOG_LEVEL/],
    [{ ADMIN_PASSWORD_RESET: "yes", ADMIN_PASSWORD: "a long password" }, /ADMIN_PASSWORD_RESET must be 1/],
    [{ ADMIN_PASSWORD_RESET: "1" }, /ADMIN_PASSWORD_RESET=1 needs ADMIN_PASSWORD/],
    [{ DEVICE_COOKIE_SECRET: "short" }, /DEVICE_COOKIE_SECRET must be at least 32 characters/],
    [{ DATABASE_URL: "mysql://u:p@db/site" }, /DATABASE_URL must be a PostgreSQL URL/],
    [{ DATABASE_URL: "postgres db on the other box" }, /DATABASE_URL must be a PostgreSQL URL/],
    [{ S3_BUCKET: "My_Photos" }, /S3_BUCKET must be a bucket name: 3-63/],
    [{ S3_BUCKET: "ab" }, /S3_BUCKET must be a bucket name: 3-63/],
    [{ S3_BUCKET: "photos", S3_ENDPOINT: "r2.example" }, /S3_ENDPOINT must be an http\(s\) URL/],
    [{ S3_BUCKET: "photos", S3_FORCE_PATH_STYLE: "yes" }, /S3_FORCE_PATH_STYLE must be true or false/],
    [
      { S3_BUCKET: "photos", S3_ACCESS_KEY_ID: "AKIA123" },
      /set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither/,
    ],
    [{ S3_REGION: "auto" }, /S3_\* settings are set but S3_BUCKET is not/],
    [{ S3_BUCKET: "photos", S3_REGION: "EU West" }, /S3_REGION must be a region name such as eu-west-1 \(R2: auto\)/],
    [{ MEDIA_BASE_URL: "cdn.example.co.nz" }, /MEDIA_BASE_URL must be an http\(s\) URL/],
    [{ BACKUP_S3_BUCKET: "Backups!" }, /BACKUP_S3_BUCKET must be a bucket name: 3-63 lower-case letters/],
    [
      { BACKUP_S3_BUCKET: "backups", BACKUP_S3_REGION: "EU" },
      /BACKUP_S3_REGION must be a region name such as eu-central-003 \(Backblaze B2\) or auto \(R2\)/,
    ],
    [
      { BACKUP_S3_BUCKET: "backups", BACKUP_S3_ACCESS_KEY_ID: "key" },
      /set both BACKUP_S3_ACCESS_KEY_ID and BACKUP_S3_SECRET_ACCESS_KEY/,
    ],
    [
      { BACKUP_S3_ENDPOINT: "https://s3.eu-central-003.backblazeb2.com" },
      /BACKUP_S3_\* settings are set but BACKUP_S3_BUCKET is not: set BACKUP_S3_BUCKET/,
    ],
    [{ BACKUP_S3_BUCKET: "backups", BACKUP_S3_ENDPOINT: "s3.example" }, /BACKUP_S3_ENDPOINT must be an http\(s\) URL/],
    [
      { BACKUP_S3_BUCKET: "backups", BACKUP_S3_SECRET_ACCESS_KEY: "secret" },
      /set both BACKUP_S3_ACCESS_KEY_ID and BACKUP_S3_SECRET_ACCESS_KEY/,
    ],
    [
      { BACKUP_S3_BUCKET: "backups", BACKUP_S3_FORCE_PATH_STYLE: "1" },
      /BACKUP_S3_FORCE_PATH_STYLE must be true or false/,
    ],
    [{ BACKUP_PASSPHRASE: "short" }, /BACKUP_PASSPHRASE must be at least 12 characters/],
    [{ BACKUP_OFFSITE_REPOSITORY: "backups/restic" }, /BACKUP_OFFSITE_REPOSITORY must be a restic repository: sftp:/],
    [
      { BACKUP_OFFSITE_REPOSITORY: "/mnt/disk", BACKUP_S3_BUCKET: "backups" },
      /BACKUP_OFFSITE_REPOSITORY and BACKUP_S3_BUCKET are both set/,
    ],
    [{ BACKUP_OFFSITE_MINUTES: "1" }, /BACKUP_OFFSITE_MINUTES must be at least 5 \(a copy every 5 minutes\)/],
    [{ BACKUP_OFFSITE_MINUTES: "hourly" }, /BACKUP_OFFSITE_MINUTES must be a whole number of minutes, such as 60/],
    [
      { BACKUP_KEEP_HOURLY: "-1" },
      /BACKUP_KEEP_HOURLY must be a whole number of hours, such as 48 \(0 keeps none by this rule\)/,
    ],
    [{ BACKUP_KEEP_DAILY: "2.5" }, /BACKUP_KEEP_DAILY must be a whole number of days, such as 30/],
    [{ BACKUP_KEEP_MONTHLY: "a year" }, /BACKUP_KEEP_MONTHLY must be a whole number of months, such as 12/],
  ])("refuses %o with a clear message", (source, message) => {
    expect(() => parseEnv(source)).toThrow(InvalidEnvironmentError);
    expect(() => parseEnv(source)).toThrow(message);
  });

  it("off-site copies: any restic repository; every 60 minutes, kept 48 hours, 30 days and 12 months, unless set", () => {
    for (const repository of [
      "sftp:backup@example.co.nz:/srv/cornerstone",
      "rest:https://backup.example/",
      "/mnt/disk",
    ])
      expect(parseEnv({ BACKUP_OFFSITE_REPOSITORY: repository }).BACKUP_OFFSITE_REPOSITORY).toBe(repository);
    expect(parseEnv({})).toMatchObject({
      BACKUP_OFFSITE_MINUTES: 60,
      BACKUP_KEEP_HOURLY: 48,
      BACKUP_KEEP_DAILY: 30,
      BACKUP_KEEP_MONTHLY: 12,
    });
    expect(
      parseEnv({
        BACKUP_OFFSITE_MINUTES: "15",
        BACKUP_KEEP_HOURLY: "0",
        BACKUP_KEEP_DAILY: "7",
        BACKUP_KEEP_MONTHLY: "24",
      }),
    ).toMatchObject({
      BACKUP_OFFSITE_MINUTES: 15,
      BACKUP_KEEP_HOURLY: 0,
      BACKUP_KEEP_DAILY: 7,
      BACKUP_KEEP_MONTHLY: 24,
    });
  });

  it("reads the mail settings: off by default, on with SMTP_URL and MAIL_FROM", () => {
    const off = parseEnv({});
    expect([off.SMTP_URL, off.MAIL_FROM, off.NOTIFY_EMAIL]).toEqual([undefined, undefined, undefined]);
    const env = parseEnv({
      SMTP_URL: "smtps://u:p@mail.example.nz",
      MAIL_FROM: "Site <site@example.nz>",
      NOTIFY_EMAIL: "mark@example.nz",
    });
    expect(env).toMatchObject({
      SMTP_URL: "smtps://u:p@mail.example.nz",
      MAIL_FROM: "Site <site@example.nz>",
      NOTIFY_EMAIL: "mark@example.nz",
    });
  });

  it.each([
    [
      { SMTP_URL: "smtp://mail.example.nz" },
      /MAIL_FROM is required when SMTP_URL is set: mail providers refuse mail sent from an address you may not send from/,
    ],
    [
      { SMTP_URL: "http://mail.example.nz", MAIL_FROM: "a@b.nz" },
      /SMTP_URL: SMTP_URL must start with smtp:\/\/ or smtps:\/\//,
    ],
    [{ SMTP_URL: "smtp://mail.example.nz?ignoreTLS=true", MAIL_FROM: "a@b.nz" }, /no path or \?options/],
    [{ SMTP_URL: "smtp://mail.example.nz", MAIL_FROM: "website" }, /MAIL_FROM must be an e-mail address/],
    [{ NOTIFY_EMAIL: "mark at example" }, /NOTIFY_EMAIL must be one e-mail address/],
  ])("refuses mail settings %o with a message that says how to fix them", (source, message) => {
    expect(() => parseEnv(source)).toThrow(InvalidEnvironmentError);
    expect(() => parseEnv(source)).toThrow(message);
  });

  it("switches to PostgreSQL and S3 only when asked, each on its own", () => {
    const defaults = parseEnv({});
    expect(defaults.DATABASE_URL).toBeUndefined();
    expect(defaults.S3_BUCKET).toBeUndefined();
    const postgresOnly = parseEnv({ DATABASE_URL: "postgres://app:pw@db:5432/site" });
    expect(postgresOnly.DATABASE_URL).toBe("postgres://app:pw@db:5432/site");
    expect(postgresOnly.S3_BUCKET).toBeUndefined();
    expect(parseEnv({ DATABASE_URL: "postgresql://db/site" }).DATABASE_URL).toBe("postgresql://db/site");
    const s3 = parseEnv({
      S3_BUCKET: "cornerstone-photos",
      S3_REGION: "auto",
      S3_ENDPOINT: "https://acct.r2.cloudflarestorage.com",
      S3_ACCESS_KEY_ID: "key",
      S3_SECRET_ACCESS_KEY: "secret",
      S3_FORCE_PATH_STYLE: "true",
      MEDIA_BASE_URL: "https://media.example.co.nz/variants/",
    });
    expect(s3).toMatchObject({ S3_BUCKET: "cornerstone-photos", S3_FORCE_PATH_STYLE: true });
    expect(s3.DATABASE_URL).toBeUndefined();
    expect(s3.MEDIA_BASE_URL).toBe("https://media.example.co.nz/variants");
    expect(parseEnv({ S3_BUCKET: "photos" }).S3_FORCE_PATH_STYLE).toBe(false);
  });

  it("lets only the allow-list reach the browser", () => {
    const env = parseEnv({
      ADMIN_USERNAME: "boss",
      ADMIN_PASSWORD: "a-long-password",
      UPLOAD_SIGNING_SECRET: "s".repeat(40),
      DEVICE_COOKIE_SECRET: "d".repeat(40),
      SMTP_URL: "smtp://u:secret@mail.example.nz",
      MAIL_FROM: "a@b.nz",
      DATABASE_URL: "postgres://app:pw@db/site",
      S3_BUCKET: "photos",
      S3_ACCESS_KEY_ID: "key",
      S3_SECRET_ACCESS_KEY: "secret",
    });
    expect(getPublicEnv(env)).toEqual({ SITE_URL: "http://localhost:3000" });
  });
});

describe("passedListenSocket (systemd's socket activation)", () => {
  it("is descriptor 3 when LISTEN_FDS counts one and LISTEN_PID names this process", () => {
    expect(passedListenSocket({ LISTEN_FDS: "1", LISTEN_PID: "4321" }, 4321)).toBe(3);
  });

  it("is null when the variables were meant for another process, count none, or are missing", () => {
    // A child process inherits its parent's environment: LISTEN_PID then names the parent.
    expect(passedListenSocket({ LISTEN_FDS: "1", LISTEN_PID: "4321" }, 9999)).toBeNull();
    expect(passedListenSocket({ LISTEN_FDS: "0", LISTEN_PID: "4321" }, 4321)).toBeNull();
    expect(passedListenSocket({ LISTEN_FDS: "x", LISTEN_PID: "4321" }, 4321)).toBeNull();
    expect(passedListenSocket({}, 4321)).toBeNull();
  });
});
