/**
 * After a restore from an unencrypted backup made on another installation: the dashboard's red
 * notice, the owner's e-mail and `npm run restore` all say this, word for word.
 */
export const TWO_STEP_LOST_IN_RESTORE =
  "Two-step verification was turned off when this site was restored. Turn it on again.";
