import {
  DndContext,
  KeyboardSensor,
  PointerSensor,
  TouchSensor,
  closestCenter,
  useSensor,
  useSensors,
  type Announcements,
  type DragEndEvent,
  type UniqueIdentifier,
} from "@dnd-kit/core";
import { SortableContext, arrayMove, sortableKeyboardCoordinates, type SortingStrategy } from "@dnd-kit/sortable";
import { useId, useState, type PointerEvent as ReactPointerEvent, type ReactNode } from "react";

/** Reordering by drag, shared by the gallery manager and the lists the owner edits (dnd-kit). */

/** Mouse and pen drags start after a few pixels; touch is left to the TouchSensor's long press. */
class MouseOrPenSensor extends PointerSensor {
  static override activators = [
    {
      eventName: "onPointerDown" as const,
      handler: (event: ReactPointerEvent, options: Parameters<(typeof PointerSensor.activators)[0]["handler"]>[1]) =>
        event.nativeEvent.pointerType === "touch" ? false : PointerSensor.activators[0]!.handler(event, options),
    },
  ];
}

export const dragInstructions = (noun: string) =>
  `To move ${noun}, press Space or Enter on its drag handle, move it with the arrow keys, then press Space or Enter to drop it, or Escape to cancel. On a touch screen, press and hold the handle, then drag.`;

/** `moved` tells "over itself" right after pick-up (which would cut the pick-up message short) from a return. */
function announcementsFor<T extends { id: string }>(
  items: T[],
  nameOf: (item: T, index: number) => string,
  drag: { moved: boolean },
): Announcements {
  const position = (id: UniqueIdentifier | undefined) => items.findIndex((item) => item.id === id) + 1;
  const name = (id: UniqueIdentifier) => {
    const index = items.findIndex((item) => item.id === id);
    return index >= 0 ? nameOf(items[index]!, index) : "item";
  };
  const total = items.length;
  return {
    onDragStart: ({ active }) => {
      drag.moved = false;
      return `Picked up ${name(active.id)}, position ${position(active.id)} of ${total}.`;
    },
    onDragOver: ({ active, over }) => {
      if (over && over.id === active.id && !drag.moved) return undefined;
      drag.moved = true;
      return over
        ? `${name(active.id)} is over position ${position(over.id)} of ${total}.`
        : `${name(active.id)} is no longer over a position.`;
    },
    onDragEnd: ({ active, over }) =>
      over
        ? `${name(active.id)} was dropped at position ${position(over.id)} of ${total}.`
        : `${name(active.id)} was dropped.`,
    onDragCancel: ({ active }) =>
      `Moving was cancelled. ${name(active.id)} stays at position ${position(active.id)} of ${total}.`,
  };
}

/** A sortable area: items are moved by their handles (`useSortable`), and `onMove` gets the new order. */
export function SortableArea<T extends { id: string }>({
  items,
  noun,
  nameOf,
  strategy,
  onMove,
  children,
}: {
  items: T[];
  /** "an image", "a review": in the instructions screen readers hear. */
  noun: string;
  nameOf: (item: T, index: number) => string;
  strategy: SortingStrategy;
  onMove: (items: T[]) => void;
  children: ReactNode;
}) {
  const dndId = useId();
  // Per drag, whether the item has left its starting place yet (only read by announcements).
  const [dragState] = useState(() => ({ moved: false }));
  const sensors = useSensors(
    useSensor(MouseOrPenSensor, { activationConstraint: { distance: 5 } }),
    useSensor(TouchSensor, { activationConstraint: { delay: 200, tolerance: 5 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );

  function onDragEnd({ active, over }: DragEndEvent) {
    if (!over || active.id === over.id) return;
    const from = items.findIndex((item) => item.id === active.id);
    const to = items.findIndex((item) => item.id === over.id);
    if (from < 0 || to < 0) return;
    onMove(arrayMove(items, from, to));
  }

  return (
    <DndContext
      id={dndId}
      sensors={sensors}
      collisionDetection={closestCenter}
      onDragEnd={onDragEnd}
      accessibility={{
        announcements: announcementsFor(items, nameOf, dragState),
        screenReaderInstructions: { draggable: dragInstructions(noun) },
      }}
    >
      <SortableContext items={items.map((item) => item.id)} strategy={strategy}>
        {children}
      </SortableContext>
    </DndContext>
  );
}
