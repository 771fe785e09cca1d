/**
 * One pull-request comment for a change across accounts (docs/plan.md "Several accounts in one
 * comment"): a summary table, then each account's plan as its own comment shows it, those that fit
 * in `maxChars`, and a line naming the rest (`--overflow FILE`). Plain data in: the saved plans'
 * figures and each plan's Markdown, so this depends on no planning code.
 */
import { Money } from "../model/money.js";
import { count, grouped } from "../model/plural.js";
import { Time } from "../model/time.js";
import type { Plan } from "../plan/types.js";
import { cell, code } from "./markdown-text.js";

/** What one account's saved plan does to the most an advertiser can spend, in one currency. */
export interface AccountMoney {
  /** `Acme`, or `advertiser 7` when the plan did not read its name. */
  advertiser: string;
  /** The plan's `max_spend_change` for the advertiser and currency (after - before). */
  change: Money;
}

/** One account of the combined comment: its saved plan's summary figures. */
export interface AccountSummary {
  account: string;
  /** The plan file as the user named it. */
  file: string;
  changes: number;
  /** Error findings: the plan cannot be applied. */
  errors: number;
  writeRequests: number;
  estimatedApplyMs: number;
  writeWindow: string;
  /** Undefined for a plan saved before doohctl recorded spend (`summary.spend` absent). */
  money: AccountMoney[] | undefined;
}

export interface AccountsMarkdownOptions {
  /** The comment's limit in characters: GitHub's 65,536 by default (GitLab takes 1,000,000). */
  maxChars: number;
  /** The account's plan as its own pull-request comment (renderMarkdown), asked for once, in order. */
  markdownOf: (index: number) => string;
  /** The file the complete comment is written to (`--overflow FILE`), as the user named it. */
  overflow?: string | undefined;
  /**
   * Receives the complete comment, every account's plan, piece by piece (`--overflow FILE`).
   * Only the comment is kept: twenty plans' Markdown held at once cost the garbage collector
   * more than rendering them (bench/accounts.ts).
   */
  write?: ((text: string) => void) | undefined;
}

export interface AccountsMarkdown {
  /** What fits in the comment. */
  comment: string;
  /** The accounts whose plans are in the complete comment but not in this one. */
  left: string[];
}

/** GitHub's limit on an issue or pull-request comment, in characters. */
export const COMMENT_MAX_CHARS = 65_536;

/** The summary figures of a saved plan; reads only the plan's data. */
export function accountSummary(input: { account: string; file: string; plan: Plan }): AccountSummary {
  const { summary } = input.plan;
  return {
    account: input.account,
    file: input.file,
    changes: input.plan.changes.length,
    errors: input.plan.findings.filter((f) => f.severity === "error").length,
    writeRequests: summary.write_requests,
    estimatedApplyMs: summary.estimated_apply_ms,
    writeWindow: summary.write_window,
    money: summary.spend?.map((s) => ({
      advertiser: s.advertiser_name ?? `advertiser ${s.advertiser_id}`,
      change: s.max_spend_change,
    })),
  };
}

/** `Acme: +600.00 USD<br>Beta: -25.00 EUR`: the advertisers whose maximum spend changes. */
function moneyCell(money: AccountMoney[] | undefined): string {
  if (money === undefined) return "not in this plan file";
  const changed = money.filter((m) => Money.toNanos(m.change) !== 0n);
  if (changed.length === 0) return "none";
  return changed
    .map((m) => `${cell(m.advertiser)}: ${Money.formatAmount(m.change, { signed: true })}`)
    .join("<br>");
}

/** Per currency over every account: advertisers of two accounts are not the same advertiser. */
function totalMoney(accounts: readonly AccountSummary[]): string {
  const totals = new Map<string, Money>();
  for (const a of accounts) {
    for (const m of a.money ?? []) {
      const currency = m.change.currency_code;
      const sum = totals.get(currency);
      totals.set(currency, sum ? Money.add(sum, m.change) : m.change);
    }
  }
  const changed = [...totals.values()].filter((m) => Money.toNanos(m) !== 0n);
  const lines = changed
    .sort((a, b) => a.currency_code.localeCompare(b.currency_code))
    .map((m) => Money.formatAmount(m, { signed: true }));
  const unknown = accounts
    .filter((a) => a.money === undefined)
    .map((a) => code(a.account, { inTable: true }));
  if (unknown.length > 0) lines.push(`without ${unknown.join(", ")} (no spend in the plan file)`);
  return lines.length === 0 ? "none" : lines.join("<br>");
}

function changesCell(a: AccountSummary): string {
  const errors = a.errors > 0 ? ` (**${count(a.errors, "error")}: cannot be applied**)` : "";
  return `${grouped(a.changes)}${errors}`;
}

function summaryLines(accounts: readonly AccountSummary[]): string[] {
  const slowest = Math.max(0, ...accounts.map((a) => a.estimatedApplyMs));
  const sum = (pick: (a: AccountSummary) => number) => accounts.reduce((n, a) => n + pick(a), 0);
  return [
    `## doohctl plan: ${count(accounts.length, "account")}, ${count(
      sum((a) => a.changes),
      "change",
    )}`,
    "",
    "| account | changes | write requests | estimated apply time | maximum spend change per advertiser |",
    "|---|--:|--:|---|---|",
    ...accounts.map(
      (a) =>
        `| ${code(a.account, { inTable: true })} | ${changesCell(a)} | ${grouped(a.writeRequests)} | about ${Time.formatDuration(a.estimatedApplyMs)} at ${cell(a.writeWindow)} | ${moneyCell(a.money)} |`,
    ),
    `| **all** | ${grouped(sum((a) => a.changes))} | ${grouped(sum((a) => a.writeRequests))} | about ${Time.formatDuration(slowest)} (each account in its own job) | ${totalMoney(accounts)} |`,
    "",
  ];
}

function sectionOf(a: AccountSummary, markdown: string): string {
  return `\n---\n\n## Account ${code(a.account)} (${code(a.file)})\n\n${markdown}`;
}

/** The line that names the accounts whose plans the comment leaves out. */
function leftNote(left: readonly string[], overflow: string | undefined): string {
  const names = left.map((name) => code(name)).join(", ");
  const where =
    overflow === undefined
      ? "run `doohctl show` with `--overflow FILE` to write the complete comment to FILE"
      : `they are in the complete comment, ${code(overflow)}, attached to the run`;
  return `> **Too long for one comment: the plans of ${names} are not shown here;** ${where}.\n`;
}

export function renderAccountsMarkdown(
  accounts: readonly AccountSummary[],
  options: AccountsMarkdownOptions,
): AccountsMarkdown {
  const head = summaryLines(accounts).join("\n");
  const write = options.write ?? (() => {});
  write(head);
  const max = options.maxChars;
  // The note naming every account is the longest it can be: its room is kept while the plans
  // are taken in order; when one does not fit, the note names fewer, so it is shorter.
  const all = accounts.map((a) => a.account);
  const reserve = leftNote(all, options.overflow).length;
  let room = max - head.length;
  // Indexed by account: the sections that fit, held (at most `max` characters of them).
  const taken: (string | undefined)[] = [];
  let allFit = true;
  for (const [i, account] of accounts.entries()) {
    const section = sectionOf(account, options.markdownOf(i));
    write(section);
    if (section.length <= room) {
      taken[i] = section;
      room -= section.length;
    } else allFit = false;
  }
  if (allFit) return { comment: `${head}${taken.join("")}`, left: [] };
  // Some plan did not fit: start again from the summary with the note's room kept, taking the
  // sections taken before, in order, while they fit.
  let free = max - head.length - reserve - 1;
  if (free < 0) return { comment: cutSummary(head, max, options.overflow), left: all };
  const shown: string[] = [];
  const left: string[] = [];
  for (const [i, account] of accounts.entries()) {
    const section = taken[i];
    if (section !== undefined && section.length <= free) {
      shown.push(section);
      free -= section.length;
    } else left.push(account.account);
  }
  return { comment: `${head}\n${leftNote(left, options.overflow)}${shown.join("")}`, left };
}

/** A summary longer than the comment itself (many accounts, a small --max-chars): cut at a line. */
function cutSummary(head: string, max: number, overflow: string | undefined): string {
  const note = `\n> **Too long for one comment: the summary is cut here and no plan is shown;** ${
    overflow === undefined
      ? "run `doohctl show` with `--overflow FILE` to write the complete comment to FILE"
      : `the complete comment is ${code(overflow)}, attached to the run`
  }.\n`;
  const cut = head.slice(0, Math.max(0, max - note.length));
  return `${cut.slice(0, cut.lastIndexOf("\n") + 1)}${note}`;
}
