/** The counts of a run that several parts of the engine add to. */
export class RunCounts {
  /** requests decided, and rejected */
  requests = 0;
  rejected = 0;
  /** request-path store calls (central-log's every request, leases-ask's asks) */
  roundTrips = 0;
  /** what requests waited on the store in total, ms (real syncs only) */
  waitMs = 0;
  /** pulsed and onset traffic: the honest client's requests, and rejected */
  honestRequests = 0;
  honestRejected = 0;
  /** lease designs: slots handed back summed over the syncs that counted them, and those syncs */
  returnedSum = 0;
  leaseSyncs = 0;
}
