import { MapPin } from "lucide-react";
import { editorTitleFor, sectionsInGroup, type PageGroup } from "~/content/sections";
import { cardClasses, SubViewFrame } from "../admin-ui";
import { SectionEditor } from "./section-editor";

/** Spec §2 Admin content editor: every section of one page group, each with its editor. */
export function ContentEditor({ group, onBack }: { group: PageGroup; onBack: () => void }) {
  const sections = sectionsInGroup(group);
  return (
    <SubViewFrame
      title={editorTitleFor(group)}
      onBack={onBack}
      intro={<p>Change the text, then press Save Changes. Visitors see it straight away.</p>}
    >
      <div className="space-y-6">
        {sections.map((section) => {
          const base = `section-${section.key.replace(/\./g, "-")}`;
          return (
            <section key={section.key} aria-labelledby={`${base}-title`} className={cardClasses}>
              <h2 id={`${base}-title`} className="text-xl font-bold text-stone-900">
                {section.title}
              </h2>
              <p id={`${base}-description`} className="mt-1 text-stone-700">
                {section.description}
              </p>
              <p id={`${base}-location`} className="mt-2 flex items-start gap-1.5 text-sm text-stone-600">
                <MapPin aria-hidden="true" className="mt-0.5 h-4 w-4 shrink-0" />
                <span>Location: {section.location}</span>
              </p>
              <div className="mt-4">
                <SectionEditor
                  sectionKey={section.key}
                  sectionTitle={section.title}
                  defaultContent={section.defaultContent}
                  describedBy={`${base}-description ${base}-location`}
                />
              </div>
            </section>
          );
        })}
      </div>
    </SubViewFrame>
  );
}
