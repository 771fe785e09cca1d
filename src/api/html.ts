/** An answer that is a web page, not the DSP's JSON: said as what to do, never as the page's markup. */
import type { HttpResponse } from "./transport.js";

export const HTML_ANSWER =
  "(an HTML page, not the DSP's JSON API): api_origin (or DOOHCTL_API_ORIGIN) probably names a web " +
  "page (the DSP's web UI, a proxy's login or error page); set it to the API's origin";

export function isHtmlAnswer(response: HttpResponse): boolean {
  const type = response.headers["content-type"];
  const contentType = (Array.isArray(type) ? type.join(",") : (type ?? "")).toLowerCase();
  if (contentType.includes("text/html")) return true;
  return /^\s*(<!doctype html|<html[\s>])/i.test(response.text);
}
