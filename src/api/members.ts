/**
 * G14 (docs/assumptions.md#g14): which members of each answer doohctl decides with. A member
 * listed here as `unset` is one doohctl does not decide with: a real DSP may leave it out or
 * answer `null`, and the client reads that as unset. A member listed as `nullable` is one
 * doohctl decides with but that G14 lets a DSP leave unset (an unset `pixel_url`, an empty
 * `audits`). Every other member the contract names is decided with: absent, `null` (where the
 * contract forbids it) or mistyped stops the run before any write. A schema not listed here
 * has every member decided with (list envelopes, `total_size`, batch answers, targetings).
 */

/** Per answer schema: members doohctl does not decide with. */
export const UNDECIDED_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  InsertionOrder: ["name"],
  Creative: ["create_time", "name", "thumbnail_url", "duration_ms", "type", "requires_audio", "asset"],
  CreativeAuditEntry: ["message", "last_reviewed"],
  CreativeAsset: ["url", "height", "width", "format", "file_size_bytes"],
  Advertiser: ["name"],
  CreativeCategory: ["name"],
  Network: ["name"],
  SessionInfo: ["email", "account_id", "expires_at"],
  MediaOwnerCreative: [
    "external_id",
    "network_id",
    "name",
    "processing_status",
    "advertiser_id",
    "thumbnail_url",
    "duration_ms",
    "seat_id",
    "bidder_id",
    "max_assets_per_day",
    "type",
    "update_time",
    "archived",
  ],
  MediaOwnerAudit: ["message", "category_ids", "tag_ids", "create_time", "last_reviewed", "last_reviewer"],
};

/** Per answer schema: members doohctl decides with that G14 lets a DSP leave unset. */
export const UNSET_ALLOWED_MEMBERS: Readonly<Record<string, readonly string[]>> = {
  // G14: an unset URL may be `null` or absent; it reads as "" (no pixel), which is what the
  // config's `pixel_url` compares against.
  Creative: ["pixel_url", "audits"],
};

/** Whether doohctl may read `member` of `schema` as unset when it is absent or `null`. */
export function unsetAllowed(schema: string, member: string): boolean {
  return (
    (UNDECIDED_MEMBERS[schema]?.includes(member) ?? false) ||
    (UNSET_ALLOWED_MEMBERS[schema]?.includes(member) ?? false)
  );
}

/**
 * The members of `schema` doohctl decides with, given the members the contract names:
 * for docs/assumptions.md and doctor.
 */
export function decidedMembers(schema: string, named: readonly string[]): string[] {
  const undecided = UNDECIDED_MEMBERS[schema] ?? [];
  return named.filter((m) => !undecided.includes(m));
}
