/**
 * What `fleetlimit replay` reads from access logs and feeds to the designs: the contract between the
 * log readers (src/replay/parse/) and the replay engine (src/replay/run/).
 */

/** One request from an access log. */
export interface Arrival {
  /** When it arrived, in ms since the Unix epoch (timezones resolved by the reader). */
  t: number;
  /** What the limit is keyed by (`--key`), already extracted. */
  key: string;
  /** The gateway that served it, 0 ≤ gateway < K: the file's index, or the route's pick (`--route`). */
  gateway: number;
  /** The HTTP status the log recorded, when it has one (429: today's limiter rejected it). */
  status?: number;
  /** Overlaid by `--attack`, not read from the log. */
  flood?: boolean;
}

/** A malformed line, kept (the first few) so the report can show where. */
export interface MalformedLine {
  file: string;
  /** 1-based. */
  line: number;
  text: string;
  reason: string;
}

/** What the readers saw, reported beside the designs' figures. */
export interface ReadStats {
  files: string[];
  lines: number;
  arrivals: number;
  malformed: number;
  /** The first malformed lines (a bounded number), in file order. */
  firstMalformed: MalformedLine[];
  /** Arrivals that came out of time order and were put back in order within the reorder window. */
  reordered: number;
  /** Arrivals older than the reorder window allows: placed at the window's edge (counted, never dropped). */
  late: number;
}

/**
 * A stream of arrivals in ascending `t` (ties in read order), with the readers' stats complete once
 * the stream has ended.
 */
export interface ArrivalSource {
  arrivals: AsyncIterable<Arrival>;
  /**
   * The same stream in batches, when the source has them: read it or `arrivals`, not both. A
   * consumer taking a batch at a time pays one await per batch, not one per arrival.
   */
  batches?: AsyncIterable<readonly Arrival[]>;
  stats(): ReadStats;
}
