/** An em dash for the eye; why there is no figure in a tooltip and for assistive technology. */
export function Missing({ reason, label }: { reason: string | null; label: string }) {
  const text = reason ? `${label}: ${reason}` : label;
  return (
    <span className="missing" title={text}>
      <span aria-hidden="true">—</span>
      <span className="visually-hidden">{text}</span>
    </span>
  );
}
