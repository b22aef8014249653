// The C++ side of tags_taglib.h: TagLib's FileRef and PropertyMap, which
// keep multi-valued tags as lists (ID3v2.4 NUL-separated frames, repeated
// Vorbis comments, APE and MP4 lists, ASF attributes). Nothing here throws
// into C: any exception (std::bad_alloc) is "TagLib cannot read it".
#include "medialib/tags_taglib.h"

#include <new>

#include <taglib/audioproperties.h>
#include <taglib/fileref.h>
#include <taglib/tpropertymap.h>

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
		if (length_ms && ref.audioProperties() && ref.audioProperties()->lengthInMilliseconds() > 0)
			*length_ms = ref.audioProperties()->lengthInMilliseconds();
		return 0;
	} catch (...) {
		return -1;
	}
}
