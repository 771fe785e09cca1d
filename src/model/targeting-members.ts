/**
 * The one description of the targeting option kinds (G5, docs/assumptions.md#g5): every table of
 * option members is taken from `TARGETING_OPTIONS`, the schemas' parts too
 * (scripts/gen-targeting-schemas.ts); a member's config name is its wire name. What else a new
 * member needs: ARCHITECTURE.md#adding-a-targeting-member.
 */

/** What an option's id list holds: any id, or numeric strings only (venue types, G5). */
export type TargetingIdKind = "id" | "numeric";

export interface TargetingOptionKind {
  /** The member of an option set, on the wire and in the config: `venue_targeting_option`. */
  readonly member: string;
  /** The option's id list (required, non-empty, a set): its name and what its ids are. */
  readonly ids: { readonly name: string; readonly of: TargetingIdKind };
  /** Whether the option takes `exclude` (a boolean, false when absent); G5: a deal does not. */
  readonly exclude: boolean;
  /** What the ids name, plural, as people read a set: `not venues 4, 5`. */
  readonly words: string;
  /** The config schema's words (docs/config.md): the option, and its id list. */
  readonly docs: { readonly option: string; readonly ids: string };
}

/** The option kinds, in canonical order (the order of a normalized set's members). */
export const TARGETING_OPTIONS = [
  {
    member: "deal_targeting_option",
    ids: { name: "deal_ids", of: "id" },
    exclude: false,
    words: "deals",
    docs: { option: "Targets venues available through these deals.", ids: "Deal ids (at least one)." },
  },
  {
    member: "venue_type_targeting_option",
    ids: { name: "venue_type_ids", of: "numeric" },
    exclude: true,
    words: "venue types",
    docs: {
      option: "Targets (or, with exclude, excludes) venues of these venue types.",
      ids: "Venue type ids: numeric category identifiers (at least one; G5).",
    },
  },
  {
    member: "venue_targeting_option",
    ids: { name: "venue_targeting_ids", of: "id" },
    exclude: true,
    words: "venues",
    docs: { option: "Targets (or, with exclude, excludes) these venues.", ids: "Venue ids (at least one)." },
  },
  {
    member: "publisher_targeting_option",
    ids: { name: "publisher_ids", of: "id" },
    exclude: true,
    words: "publishers",
    docs: {
      option: "Targets (or, with exclude, excludes) venues of these publishers.",
      ids: "Publisher ids (at least one).",
    },
  },
] as const satisfies readonly TargetingOptionKind[];

type Kind = (typeof TARGETING_OPTIONS)[number];

/** One option of a kind: its id list, and `exclude` where the kind takes it. */
export type TargetingOptionOf<K extends Kind> = {
  [P in K["ids"]["name"]]: string[];
} & (K["exclude"] extends true ? { exclude?: boolean } : unknown);

/** The known members of an option set, each optional (a set holds at least one, G5). */
export type KnownTargetingMembers = { [K in Kind as K["member"]]?: TargetingOptionOf<K> };

const BY_MEMBER = new Map<string, TargetingOptionKind>(TARGETING_OPTIONS.map((kind) => [kind.member, kind]));

/** The kind of an option set's member; undefined for a member doohctl does not know (G14). */
export function targetingOption(member: string): TargetingOptionKind | undefined {
  return BY_MEMBER.get(member);
}

/** `exclude: true` excludes the listed ids: the config schema's words for it. */
export function excludeDocs(kind: TargetingOptionKind): string {
  return `true excludes the listed ${kind.words}. Default false.`;
}
