/**
 * A benchmark figure: one measured number, the target it must meet, and for request counts
 * and simulated times the ratio to the theoretical bound and to the one-object-per-request
 * approach a generic REST reconciler takes.
 */
export interface Figure {
  area: string;
  name: string;
  value: number;
  unit: string;
  /** The required target, e.g. `{ op: "<=", value: 1000 }` for "under 1 s". */
  target?: { op: "<=" | ">="; value: number };
  /** The theoretical best (minimum requests, window-bound time). */
  bound?: number;
  /** The same work done one object per request. */
  naive?: number;
}

export interface Benchmark {
  area: string;
  run(): Promise<Figure[]>;
}

export function meets(figure: Figure): boolean | undefined {
  if (!figure.target) return undefined;
  return figure.target.op === "<="
    ? figure.value <= figure.target.value
    : figure.value >= figure.target.value;
}

function number(value: number): string {
  if (Number.isInteger(value)) return value.toLocaleString("en-US");
  return value.toLocaleString("en-US", { maximumFractionDigits: 5 });
}

function ratio(value: number, against: number | undefined): string {
  if (against === undefined || against === 0) return "";
  return `${(value / against).toFixed(3)}`;
}

export function markdownTable(figures: readonly Figure[]): string {
  const rows = [
    "| area | figure | value | target | met | ratio to bound | ratio to one-per-request |",
    "|---|---|---:|---|:-:|---:|---:|",
  ];
  for (const f of figures) {
    const met = meets(f);
    rows.push(
      `| ${f.area} | ${f.name} | ${number(f.value)} ${f.unit} | ${f.target ? `${f.target.op} ${number(f.target.value)} ${f.unit}` : ""} | ${met === undefined ? "" : met ? "yes" : "**no**"} | ${ratio(f.value, f.bound)} | ${ratio(f.value, f.naive)} |`,
    );
  }
  return `${rows.join("\n")}\n`;
}

/** Wall time of `fn` in milliseconds, with the heap growth it caused. */
export async function measure<T>(
  fn: () => Promise<T> | T,
): Promise<{ ms: number; heapMb: number; result: T }> {
  globalThis.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const start = process.hrtime.bigint();
  const result = await fn();
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  const heapMb = Math.max(0, process.memoryUsage().heapUsed - heapBefore) / 2 ** 20;
  return { ms, heapMb, result };
}
