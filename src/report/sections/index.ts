/** The report's sections in the order they are read: this file only assembles them. */
import type { StudyResults } from '../../sim/types.js';
import type { Section } from '../document.js';
import { attackSection } from './attack-pick.js';
import { busyKeySection } from './busy-key.js';
import { checksSection } from './checks.js';
import { floodAllSection } from './flood-all.js';
import { floodAtK8Section } from './flood-k8.js';
import { floodWorstSection } from './flood-worst.js';
import { formulaSection } from './formulas.js';
import { hardCasesSection } from './hard-cases.js';
import { honestByDeltaSection } from './honest-by-delta.js';
import { honestByKSection } from './honest-by-k.js';
import { howToReadSection } from './how-to-read.js';
import { leasesSection } from './leases.js';
import { manyKeysSection } from './many-keys.js';
import { pageLoadSection } from './page-loads.js';
import { scorecardSection } from './scorecard.js';
import { sharedCounterVariantsSection } from './shared-counter-variants.js';
import { storeDelaySection } from './store-delay.js';
import { syncLossSection } from './sync-loss.js';
import { verdictSection } from './verdict.js';

export function reportSections(results: StudyResults): Section[] {
  const rows = results.rows;
  // the extended grid's sections appear only when it ran; the others say in one line what is missing
  const extended = rows.some(
    (r) =>
      r.group === 'scorecard' ||
      r.group === 'delay' ||
      r.group === 'hard' ||
      r.group === 'onset' ||
      r.group === 'keys',
  );
  // the report opens with what to do, then the scorecard it is judged by, then how to read the rest
  return [
    verdictSection(rows),
    ...(extended ? [scorecardSection(rows)] : []),
    howToReadSection(),
    floodAtK8Section(rows),
    floodWorstSection(rows),
    floodAllSection(rows),
    sharedCounterVariantsSection(rows),
    honestByKSection(rows),
    honestByDeltaSection(rows),
    pageLoadSection(rows),
    leasesSection(rows),
    busyKeySection(rows),
    ...(extended
      ? [
          storeDelaySection(rows),
          syncLossSection(rows),
          attackSection(rows),
          hardCasesSection(rows),
          manyKeysSection(rows),
        ]
      : []),
    formulaSection(rows),
    checksSection(results.checks),
  ];
}
