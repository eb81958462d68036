/**
 * How long a DNS request (adding a domain, a delegation check, a record write, a hostname attach or finalize)
 * waits for the controller's answer in the object's status. The controller's pass is a few provider calls
 * and at most a few DNS queries (each bounded by CW_DNS_TIMEOUT_MS, 3 s by default): 10 s leaves room for
 * one slow query and a queue of work. Past it the request answers the status as it stands.
 */
export const CONTROLLER_ANSWER_MS = 10_000;
