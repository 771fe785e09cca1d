/** The little of jsdom's API test/status/mermaid.ts uses (jsdom ships no types; no @types dependency for one call). */
declare module "jsdom" {
  export class JSDOM {
    constructor(html: string, options?: { pretendToBeVisual?: boolean });
    readonly window: Window & typeof globalThis;
  }
}
