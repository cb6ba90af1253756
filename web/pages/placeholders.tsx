import { Page } from "../ui.js";

/** Placeholder: the verification analytics API is being built; this page comes with it. */
export function AnalyticsPage() {
  return (
    <Page title="Verification analytics">
      <div class="card placeholder" role="note">
        <p><strong>Coming next round.</strong> Charts of verifications over time by outcome, the top keys, and a tag filter will
          appear here once Keyward's analytics API is merged.</p>
      </div>
    </Page>
  );
}

/** Placeholder: the audit log API is being built; this page comes with it. */
export function AuditLogPage() {
  return (
    <Page title="Audit log">
      <div class="card placeholder" role="note">
        <p><strong>Coming next round.</strong> Every change made through the API or the CLI, with who made it and when, will be
          listed here once Keyward's audit log API is merged.</p>
      </div>
    </Page>
  );
}
