/** What each test type's result lists and draws: the server's rule, shared (its report and CSV use the same). */
export { boxesOf, descriptiveRows, referenceOf } from '../../../../server/src/features/statistical-analysis/result-parts';
