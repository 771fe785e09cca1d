/** Every operation the emulator serves (docs/emulator.md, "What it serves"), in the router's order. */
import type { Route } from "../context.js";
import { advertiserRoutes } from "./advertisers.js";
import { campaignRoutes } from "./campaigns.js";
import { creativeRoutes } from "./creatives.js";
import { insertionOrderRoutes } from "./insertion-orders.js";
import { mediaOwnerRoutes } from "./media-owner.js";
import { sessionRoutes } from "./session.js";
import { targetingRoutes } from "./targetings.js";

export const ROUTES: readonly Route[] = [
  ...sessionRoutes,
  ...advertiserRoutes,
  ...insertionOrderRoutes,
  ...campaignRoutes,
  ...targetingRoutes,
  ...creativeRoutes,
  ...mediaOwnerRoutes,
];
