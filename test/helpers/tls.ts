import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** TLS tests need openssl to make a certificate; without it they are skipped, not failed. */
export function hasOpenssl(): boolean {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

export interface TestCertificate {
  key: string;
  cert: string;
  /** Where the certificate is on disk (for NODE_EXTRA_CA_CERTS and --ca). */
  certPath: string;
}

/** A fresh self-signed certificate for 127.0.0.1, valid for a day. */
export function selfSignedCertificate(prefix = "doohctl-tls-"): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const keyPath = join(dir, "key.pem");
  const certPath = join(dir, "cert.pem");
  execFileSync(
    "openssl",
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1"].concat([
      "-addext",
      "subjectAltName=IP:127.0.0.1",
      "-keyout",
      keyPath,
      "-out",
      certPath,
    ]),
    { stdio: "ignore" },
  );
  return { key: readFileSync(keyPath, "utf8"), cert: readFileSync(certPath, "utf8"), certPath };
}
