/**
 * What `pulumi refresh` (and `pulumi up --refresh`) can tell about webhooks, and the one warning that says what it
 * cannot: the help-desk API has no endpoint to read a webhook (docs/helpdesk-api.md §4.5), so each Read keeps the
 * recorded state, and a webhook deleted or changed in the help desk goes unnoticed until Pulumi deletes or replaces it.
 *
 * One warning per provider process and run, with the count known only at the end: each Read counts one webhook, and
 * the front end takes the warning when the engine ends the run. The v3.259 engine releases a run's plugins with
 * `host.ReleaseContext` (pulumi/pulumi `pkg/host/host.go`): for each resource plugin it calls `Cancel`
 * (`SignalCancellation`, 5 s) and then interrupts the process (SIGINT, 5 s before SIGKILL), while its `Log` service
 * and the diagnostics of the run still take messages. The native plugin takes the warning in `Cancel`; the dynamic
 * provider, whose host (`@pulumi/pulumi` `cmd/dynamic-provider`) handles `Cancel` itself, on SIGINT.
 */

/**
 * The warning for webhooks a refresh kept as recorded. Never names a url.
 *
 * @param kept how many webhooks the run's Reads kept (> 0)
 * @param provider how the warning names the provider instance, e.g. `provider "eu"` or `the dynamic Webhook provider`
 * @returns one sentence group for people
 */
export function refreshWarning(kept: number, provider: string): string {
  const webhooks = kept === 1 ? "1 webhook" : `${kept} webhooks`;
  return (
    `refresh cannot ask the help desk whether a webhook still exists (its API has no endpoint to read one, docs/helpdesk-api.md §4.5): ` +
    `${provider} kept ${webhooks} as recorded. A webhook deleted or changed in the help desk is noticed only when Pulumi deletes ` +
    "or replaces it (`pulumi up --replace <urn>` registers one again)."
  );
}

/** Counts the webhooks one provider process's refresh kept, and gives the warning once at the end of the run. */
export class RefreshTally {
  private kept = 0;

  /** Counts one webhook that a Read kept as recorded (a refresh's Read, not an import's). */
  keep(): void {
    this.kept++;
  }

  /**
   * The warning for the webhooks counted since the last call ({@link refreshWarning}), and the count back to 0.
   *
   * @param provider how the warning names the provider instance
   * @returns the warning, or undefined when no webhook was kept (a run without refresh says nothing)
   */
  take(provider: string): string | undefined {
    const kept = this.kept;
    this.kept = 0;
    return kept > 0 ? refreshWarning(kept, provider) : undefined;
  }
}
