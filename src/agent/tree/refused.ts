/** Thrown to a tree tool (agent, review_task, read_context_ref): becomes an error result for the model, nothing ran. */
export class DelegationRefused extends Error {}
