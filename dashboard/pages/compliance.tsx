import { RetentionDocument } from "../generated";
import { useQuery } from "../lib/query";
import { ErrorNotice } from "../ui/feedback";
import { Erasure } from "./compliance/erasure";
import { LegalHolds } from "./compliance/holds";
import { Retention } from "./compliance/retention";

/** Retention periods, legal holds and erasure (issue 12): owners and admins only, as the API allows. */
export default function CompliancePage() {
  const retention = useQuery(RetentionDocument, {});
  return (
    <section aria-labelledby="compliance-heading">
      <h1 id="compliance-heading">Compliance</h1>
      <ErrorNotice error={retention.error} />
      {retention.data && <Retention periods={retention.data.tenant.retention} />}
      <LegalHolds />
      <Erasure />
    </section>
  );
}
