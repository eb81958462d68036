// Checks of values the binaries' configurations share.
import { HOSTNAME_PATTERN } from '../apis/v1alpha1/strings.ts';

const HOSTNAME = new RegExp(HOSTNAME_PATTERN);
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/** A DNS host name with at least two labels (`apps.example.com`), any case. */
export function isHostname(text: string): boolean {
  return HOSTNAME.test(text.toLowerCase());
}

/** A Kubernetes namespace name (an RFC 1123 label). */
export function isNamespace(text: string): boolean {
  return NAMESPACE.test(text);
}

/** Log levels of pino, which cw-api and cw-git log with. */
export const PINO_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type PinoLevel = (typeof PINO_LEVELS)[number];
