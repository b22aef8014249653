// The C++ side of tags_taglib.h: TagLib's FileRef and PropertyMap, which
// keep multi-valued tags as lists (ID3v2.4 NUL-separated frames, repeated
// Vorbis comments, APE and MP4 lists, ASF attributes). Nothing here throws
// into C: any exception (std::bad_alloc) is "TagLib cannot read it".
#include "medialib/tags_taglib.h"

#include <new>

#include <taglib/audioproperties.h>
#include <taglib/fileref.h>
#include <taglib/tpropertymap.h>

// A file's PropertyMap is its first tag's (ID3v2, else APE, else ID3v1);
// its basic tag merges them. A basic field the first tag lacks and another
// tag has (the ID3v1 album beside an ID3v2 tag without one) is given too.
static void basic_fallbacks(const TagLib::FileRef &ref, const TagLib::PropertyMap &props,
			    mlib_taglib_value_fn fn, void *ud)
{
	const TagLib::Tag *tag = ref.tag();
	if (!tag)
		return;
	const struct {
		const char *key;
		TagLib::String value;
	} basic[] = {
		{"ARTIST", tag->artist()},
		{"ALBUM", tag->album()},
		{"TITLE", tag->title()},
		{"GENRE", tag->genre()},
		{"DATE", tag->year() ? TagLib::String::number(static_cast<int>(tag->year()))
				     : TagLib::String()},
		{"TRACKNUMBER", tag->track() ? TagLib::String::number(static_cast<int>(tag->track()))
					     : TagLib::String()},
	};
	for (const auto &b : basic)
		if (!b.value.isEmpty() && !props.contains(b.key))
			fn(ud, b.key, b.value.toCString(true));
}

int mlib_taglib_read(const char *path, mlib_taglib_value_fn fn, void *ud, int64_t *length_ms)
{
	if (length_ms)
		*length_ms = 0;
	try {
		TagLib::FileRef ref(path, length_ms != nullptr, TagLib::AudioProperties::Fast);
		if (ref.isNull() || !ref.file() || !ref.file()->isValid())
			return -1;
		const TagLib::PropertyMap props = ref.file()->properties();
		for (const auto &entry : props) {
			const std::string key = entry.first.to8Bit(true);
			for (const auto &value : entry.second)
				fn(ud, key.c_str(), value.toCString(true));
		}
		basic_fallbacks(ref, props, fn, ud);
		if (length_ms && ref.audioProperties() && ref.audioProperties()->lengthInMilliseconds() > 0)
			*length_ms = ref.audioProperties()->lengthInMilliseconds();
		return 0;
	} catch (...) {
		return -1;
	}
}
