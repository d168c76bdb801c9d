import { describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../src/cli/index";

const PROGRAM = ["/opt/jobpilot/bin/jobpilot"];

async function install(argv: string[], opts: { home?: string; uid?: number; env?: Record<string, string> } = {}) {
  const home = opts.home ?? mkdtempSync(join(tmpdir(), "jp-home-"));
  const data = join(home, "data");
  let stdout = "";
  let stderr = "";
  const code = await runCli(["service", "install", ...argv], {
    env: { HOME: home, USER: "alice", JOBPILOT_DB: join(data, "jobpilot.db"), ...opts.env },
    stdout: (s) => void (stdout += s),
    stderr: (s) => void (stderr += s),
    program: PROGRAM,
    uid: opts.uid ?? 1000,
  });
  if (typeof code !== "number") throw new Error("a long-running command");
  return { code, stdout, stderr, home, data, unit: join(home, ".config/systemd/user/jobpilot.service"), envFile: join(home, ".config/jobpilot/jobpilot.env") };
}

const lines = (text: string) => text.split("\n");

/** systemd's own check of a unit file, where systemd is installed. */
async function systemdVerify(unitText: string): Promise<string | null> {
  if (!existsSync("/usr/bin/systemd-analyze")) return null;
  const dir = mkdtempSync(join(tmpdir(), "jp-unit-"));
  const path = join(dir, "jobpilot.service");
  // verify also checks that ExecStart's program exists: point it at one that does.
  writeFileSync(path, unitText.replace(PROGRAM[0]!, process.execPath));
  const proc = Bun.spawn(["/usr/bin/systemd-analyze", "verify", path], { stdout: "pipe", stderr: "pipe" });
  const [err, code] = [await new Response(proc.stderr).text(), await proc.exited];
  return code === 0 ? "" : err;
}

describe("service install", () => {
  test("--user writes a hardened unit for this executable's serve under ~/.config/systemd/user, a private settings file, and says how to enable it", async () => {
    const r = await install(["--user"]);
    expect(r.code, r.stderr).toBe(0);
    const unit = readFileSync(r.unit, "utf8");
    expect(lines(unit)).toEqual(
      expect.arrayContaining([
        "[Service]",
        "ExecStart=/opt/jobpilot/bin/jobpilot serve",
        `WorkingDirectory=${r.data}`,
        `Environment=JOBPILOT_DB=${join(r.data, "jobpilot.db")}`,
        `EnvironmentFile=-${r.envFile}`,
        "Restart=on-failure",
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
        `ReadWritePaths=${r.data}`,
        "ProtectHome=read-only",
        "WantedBy=default.target",
      ]),
    );
    expect(unit).not.toContain("User=");
    expect(existsSync(r.data)).toBe(true); // ReadWritePaths must exist when the service starts
    expect(statSync(r.envFile).mode & 0o777).toBe(0o600);
    expect(r.stdout).toContain(`Wrote ${r.unit}`);
    for (const step of [
      "systemctl --user daemon-reload",
      "systemctl --user enable --now jobpilot",
      "loginctl enable-linger alice",
      "journalctl --user -u jobpilot -f",
    ]) {
      expect(r.stdout).toContain(step);
    }
    const verified = await systemdVerify(unit);
    if (verified !== null) expect(verified).toBe("");
  });

  test("an existing unit is not overwritten without --force, and the settings file never is", async () => {
    const first = await install(["--user"]);
    writeFileSync(first.envFile, "OPENAI_API_KEY=mine\n");
    writeFileSync(first.unit, "# edited by hand\n");
    const again = await install(["--user"], { home: first.home });
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`${first.unit} exists; --force overwrites it`);
    expect(readFileSync(first.unit, "utf8")).toBe("# edited by hand\n");
    const forced = await install(["--user", "--force"], { home: first.home });
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(first.unit, "utf8")).toContain("ExecStart=/opt/jobpilot/bin/jobpilot serve");
    expect(readFileSync(first.envFile, "utf8")).toBe("OPENAI_API_KEY=mine\n");
  });

  test("--system without root explains how, and writes nothing; --print shows the system unit", async () => {
    const r = await install(["--system", "--run-as", "jobpilot"], { uid: 1000 });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("writing /etc/systemd/system/jobpilot.service needs root. Run it with sudo");
    expect(r.stderr).toContain(`sudo /opt/jobpilot/bin/jobpilot service install --system --run-as jobpilot --db ${join(r.data, "jobpilot.db")}`);
    expect(r.stderr).toContain("service install --system --print > jobpilot.service");
    expect(existsSync(r.data)).toBe(false);

    const printed = await install(["--system", "--print"], { env: { SUDO_USER: "bob", JOBPILOT_DB: "/srv/jobpilot/jobpilot.db" } });
    expect(printed.code, printed.stderr).toBe(0);
    expect(lines(printed.stdout)).toEqual(
      expect.arrayContaining([
        "ExecStart=/opt/jobpilot/bin/jobpilot serve",
        "User=bob",
        "ProtectHome=yes",
        "ReadWritePaths=/srv/jobpilot",
        "EnvironmentFile=-/etc/jobpilot/jobpilot.env",
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
        "WantedBy=multi-user.target",
      ]),
    );
    expect(existsSync("/srv/jobpilot")).toBe(false);
    // Data under a home directory: the system unit may read homes (ReadWritePaths still opens the data).
    const inHome = await install(["--system", "--print", "--run-as", "carol", "--db", "/home/carol/jp/jobpilot.db"]);
    expect(inHome.stdout).toContain("ProtectHome=read-only\n");
    const verified = await systemdVerify(printed.stdout);
    if (verified !== null) expect(verified).toBe("");
  });

  test("a backup directory outside the data directory is writable too; paths with spaces and % are quoted and escaped", async () => {
    const r = await install(["--user", "--print", "--db", "/tmp/my data/jobpilot.db"], { env: { JOBPILOT_BACKUP_DIR: "/mnt/backup%1" } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('ReadWritePaths="/tmp/my data" /mnt/backup%%1\n');
    expect(r.stdout).toContain('Environment="JOBPILOT_DB=/tmp/my data/jobpilot.db"\n');
    expect(r.stdout).toContain("WorkingDirectory=/tmp/my data\n");
    const verified = await systemdVerify(r.stdout);
    if (verified !== null) expect(verified).toBe("");
  });

  test("a private /tmp unless the database, backups or program are under /tmp or /var/tmp, which it would hide from the service", async () => {
    const private_ = await install(["--user", "--print", "--db", "/srv/jobpilot/jobpilot.db"], { env: { JOBPILOT_BACKUP_DIR: "/srv/backups" } });
    expect(lines(private_.stdout)).toContain("PrivateTmp=yes");
    const envs: Record<string, string>[] = [
      { JOBPILOT_DB: "/tmp/jp/jobpilot.db" },
      { JOBPILOT_DB: "/srv/jp/jobpilot.db", JOBPILOT_BACKUP_DIR: "/var/tmp/backups" },
    ];
    for (const env of envs) {
      const r = await install(["--user", "--print"], { env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toContain("PrivateTmp=yes");
      expect(r.stdout).toContain("# PrivateTmp is off");
    }
  });

  test("on PostgreSQL the unit names no database file and no writable directory, and the URL goes to the private settings file", async () => {
    const url = "postgres://jp:s3cret@db.internal:5432/jobpilot";
    const r = await install(["--user"], { env: { JOBPILOT_DATABASE_URL: url } });
    expect(r.code, r.stderr).toBe(0);
    const unit = readFileSync(r.unit, "utf8");
    expect(unit).not.toContain("JOBPILOT_DB");
    expect(unit).not.toContain("ReadWritePaths");
    expect(unit).not.toContain("s3cret");
    expect(unit).toContain("ProtectSystem=strict\n");
    expect(readFileSync(r.envFile, "utf8")).toContain(`JOBPILOT_DATABASE_URL=${url}\n`);
    expect(statSync(r.envFile).mode & 0o777).toBe(0o600);
    const verified = await systemdVerify(unit);
    if (verified !== null) expect(verified).toBe("");
  });

  test.each([
    [[], /give --user .* or --system/],
    [["--user", "--system"], /give --user or --system, not both/],
    [["--system", "--print"], /--system needs --run-as USER/],
    [["--system", "--print", "--run-as", "root"], /--system needs --run-as USER/],
    [["--system", "--print", "--run-as", "bad name"], /'bad name' is not a user name/],
    [["--user", "--db", ":memory:"], /a service needs a database file/],
  ])("a bad command line %p exits 2 with one line", async (argv, message) => {
    const r = await install(argv, { env: { USER: "root" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(existsSync(r.unit)).toBe(false);
  });
});
