/**
 * Reports a failure that must not fail the request (e.g. recording an activity event after the
 * response is decided). The composition root wires it to the log.
 */
export type ErrorReporter = (err: unknown, context: string) => void;
