import { Suspense } from "react";
import { Await } from "react-router";
import type { GalleryResult, GalleryType } from "~/galleries/gallery";
import { GalleryGrid } from "./gallery-grid";

/** A gallery whose data may still be on its way: placeholders until it arrives. */
export function DeferredGallery({
  galleryType,
  result,
  eagerFirstImage,
}: {
  galleryType: GalleryType;
  result: Promise<GalleryResult>;
  eagerFirstImage?: boolean;
}) {
  return (
    <Suspense fallback={<GalleryGrid galleryType={galleryType} state={{ status: "loading" }} />}>
      <Await resolve={result} errorElement={<GalleryGrid galleryType={galleryType} state={{ status: "error" }} />}>
        {(state) => <GalleryGrid galleryType={galleryType} state={state} eagerFirstImage={eagerFirstImage} />}
      </Await>
    </Suspense>
  );
}
