/**
 * Leases (docs/safety.md, Recovery record): a running apply renews its lease every 5 s, and it
 * holds while renewed within 30 s. On its host a gone process ends it at once: the process is its
 * pid AND start time (a pid is reused); where that cannot be read, only the age decides.
 */
import { readFileSync } from "node:fs";
import { hostname } from "node:os";
import type { Clock } from "../model/clock.js";

/** How often a running apply renews its lease. */
export const LEASE_RENEW_MS = 5_000;
/** A lease not renewed for this long is stale, whatever its process. */
export const LEASE_STALE_MS = 30_000;

export interface Lease {
  host: string;
  pid: number;
  /** The process's start time (Linux clock ticks since boot, as text); absent where unknown. */
  pid_start?: string;
  /** When the lease was last renewed (ISO 8601, the apply's clock). */
  renewed_at: string;
}

/**
 * The start time of process `pid` on this host: field 22 of `/proc/<pid>/stat` (Linux), or
 * `null` when the process does not exist, or undefined where /proc cannot tell.
 */
export function processStart(pid: number): string | null | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ESRCH") return existsProc() ? null : undefined;
    return undefined;
  }
  // Field 2 is the command in parentheses and may hold spaces: count from the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return fields[22 - 3];
}

function existsProc(): boolean {
  try {
    readFileSync("/proc/self/stat");
    return true;
  } catch {
    return false;
  }
}

/** This process's lease, renewed now. */
export function ownLease(clock: Clock): Lease {
  const start = processStart(process.pid);
  return {
    host: hostname(),
    pid: process.pid,
    ...(typeof start === "string" ? { pid_start: start } : {}),
    renewed_at: new Date(clock.now()).toISOString(),
  };
}

/** A lease as read from a file, or undefined when it is not one (a reader trusts nothing read). */
export function leaseOf(value: unknown): Lease | undefined {
  const v = value as Partial<Lease> | null;
  if (v === null || typeof v !== "object") return undefined;
  if (typeof v.host !== "string" || !Number.isInteger(v.pid) || typeof v.renewed_at !== "string")
    return undefined;
  if (Number.isNaN(Date.parse(v.renewed_at))) return undefined;
  if (v.pid_start !== undefined && typeof v.pid_start !== "string") return undefined;
  return v as Lease;
}

/** When the lease goes stale if not renewed (ms since the epoch). */
export function leaseExpiry(lease: Lease): number {
  return Date.parse(lease.renewed_at) + LEASE_STALE_MS;
}

/** Whether the lease holds at `now`; `ownedHere`: this host and pid may be a killed predecessor's. */
export function leaseFresh(lease: Lease, now: number, ownedHere: (lease: Lease) => boolean): boolean {
  const renewed = Date.parse(lease.renewed_at);
  // Renewed in the future beyond a lease's length: no clock skew explains it, it is not a lease.
  if (!(renewed <= now + LEASE_STALE_MS) || now >= renewed + LEASE_STALE_MS) return false;
  if (lease.host !== hostname()) return true;
  if (lease.pid === process.pid) return ownedHere(lease);
  const start = processStart(lease.pid);
  if (start === null) return false; // the process is gone
  if (start !== undefined) return lease.pid_start === start; // a reused pid is another process
  try {
    process.kill(lease.pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
  }
  return true; // only the lease's age can tell here
}

/** Renews a lease every LEASE_RENEW_MS until stopped; a failed renewal is retried (the lease ages). */
export function renewEvery(
  clock: Clock,
  renew: () => void,
  onError: (error: unknown) => void = () => {},
): { stop(): void } {
  const controller = new AbortController();
  const loop = async () => {
    for (;;) {
      await clock.sleep(LEASE_RENEW_MS, controller.signal);
      try {
        renew();
      } catch (error) {
        onError(error);
      }
    }
  };
  loop().catch(() => {
    // stopped
  });
  return { stop: () => controller.abort(new Error("lease released")) };
}
