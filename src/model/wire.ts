/** The DSP's resources on the wire (spec, with G1, G2, G6, G9, G11), shared by emulator and client. */
import type { Money } from "./money.js";
import type {
  CAMPAIGN_FIELDS,
  ChangesOf,
  CREATIVE_FIELDS,
  CreatedOf,
  INSERTION_ORDER_FIELDS,
  WireOf,
} from "./resource-fields.js";
import type { TargetingOptionSet } from "./targeting.js";

// Each resource's members come from its table in resource-fields.ts.

/** G1: insertion orders are contracted outside the API; they are read and patched only. */
export interface InsertionOrder extends WireOf<typeof INSERTION_ORDER_FIELDS> {}

/** Properties a PATCH of an insertion order may carry (spec; G1 names the contract number). */
export interface InsertionOrderPatch extends ChangesOf<typeof INSERTION_ORDER_FIELDS> {
  id: string;
}

/** G2. `pacing` is opaque: stored and returned as given. */
export interface Campaign extends WireOf<typeof CAMPAIGN_FIELDS> {
  progress?: CampaignProgress;
  /** G5, a dialect's `campaign_targetings` (dialect.ts): the targetings its answer embeds. */
  targetings?: TargetingOptionSet[];
}

/** G2: present only with `include_progress=true`. */
export interface CampaignProgress {
  impressions_delivered: number;
  spend: Money;
}

/** G3: one item of `POST /campaigns`; `active` is sent as false (I2). */
export type CampaignCreate = { insertion_order_id: string; name: string; active?: boolean } & CreatedOf<
  typeof CAMPAIGN_FIELDS
>;

/** Spec: the properties a campaign PATCH may change. */
export interface CampaignPatch extends ChangesOf<typeof CAMPAIGN_FIELDS> {
  id: string;
}

export interface Advertiser {
  id: string;
  name: string;
}

export interface CreativeCategory {
  id: string;
  name: string;
}

export interface Network {
  id: string;
  name: string;
}

export const CREATIVE_TYPES = [
  "NONE",
  "DYNAMIC",
  "SAGE_AND_ARCHER_DYNAMIC",
  "IMAGE",
  "VIDEO",
  "AUDIO",
  "UNKNOWN",
] as const;
export type CreativeType = (typeof CREATIVE_TYPES)[number];

export const PROCESSING_STATUSES = ["PROCESSING", "PROCESSED", "FAILED"] as const;
export type ProcessingStatus = (typeof PROCESSING_STATUSES)[number];

export const AUDIT_STATUSES = ["PENDING", "APPROVED", "DENIED"] as const;
export type AuditStatus = (typeof AUDIT_STATUSES)[number];

export interface CreativeAsset {
  url: string;
  height: number;
  width: number;
  format: string;
  file_size_bytes: number;
}

/** G6: one entry per network that reviewed the creative (G11). */
export interface CreativeAuditEntry {
  network_id: string;
  status: AuditStatus;
  message: string;
  last_reviewed: string;
}

/** The DSP view of a creative: the members doohctl reads (resource-fields.ts), and the rest. */
export interface Creative extends WireOf<typeof CREATIVE_FIELDS> {
  create_time: string;
  thumbnail_url: string;
  duration_ms: number;
  type: CreativeType;
  requires_audio: boolean;
  processing_status: ProcessingStatus;
  asset: CreativeAsset | null;
  audits: CreativeAuditEntry[];
}

/** G6: one item of `PATCH /creatives` (the associations come from the plan's phase 5, not a field). */
export interface CreativePatch extends ChangesOf<typeof CREATIVE_FIELDS> {
  id: string;
  campaign_ids?: string[];
  insertion_order_ids?: string[];
}

/** G6: one item of `POST /creatives`. */
export interface CreativeCreate {
  name: string;
  advertiser_id: string;
  type: CreativeType;
  asset: CreativeAsset;
  duration_ms?: number;
  requires_audio?: boolean;
  category_ids?: string[];
  pixel_url?: string;
}

/** The media-owner view, returned by `PATCH {media_owner_base_url}/creatives/{id}` (G11). */
export interface MediaOwnerCreative {
  id: string;
  audit: {
    status: AuditStatus;
    message: string;
    category_ids: string[];
    tag_ids: string[];
    create_time: string;
    last_reviewed: string;
    last_reviewer: string;
  };
  external_id: string;
  network_id: string;
  name: string;
  processing_status: ProcessingStatus;
  advertiser_id: string;
  thumbnail_url: string;
  duration_ms: number;
  seat_id: string;
  bidder_id: string;
  max_assets_per_day: number;
  type: CreativeType;
  update_time: string;
  archived: boolean;
}

/** Spec: "Creative campaign market entry". */
export interface CreativeCampaignMarket {
  start_date: string;
  end_date: string;
  markets: string[];
}

/** G9: the body of a successful `POST /api/session`. */
export interface SessionInfo {
  email: string;
  account_id: string;
  expires_at: string;
}

/** Spec, "Errors": every error response has this shape. */
export interface ApiErrorBody {
  message: string;
  data?: ApiFieldError[];
}

export interface ApiFieldError {
  field: string;
  messages: string[];
}

export type Environment = "production" | "staging";

/** Spec, Authentication item 3 and G9: the cookie that carries the session token. */
export function sessionCookieName(environment: Environment): string {
  return environment === "production" ? "tr-production" : "tr-staging";
}

/** Spec, "Limits" and "Common list query parameters". */
export const MAX_PAGE_SIZE = 100;
export const DEFAULT_PAGE_SIZE = 25;
/** G12: `page` is bounded to 0..100. */
export const MAX_PAGE = 100;
/** Spec, "Limits": batch size for creation or update. */
export const MAX_BATCH = 100;
/** Spec, Authentication item 5: sessions last 8 hours. */
export const SESSION_LIFETIME_MS = 8 * 60 * 60 * 1000;

/** Spec: DSP base path; G11: media-owner base path. */
export const DSP_BASE_PATH = "/api/dsp/v1";
export const MEDIA_OWNER_BASE_PATH = "/api/media_owner/v1";
export const SESSION_PATH = "/api/session";
