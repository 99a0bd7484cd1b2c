// vk_compute.comp - the compute passes of examples/vk_compute.c, compiled
// to SPIR-V at build time (glslangValidator -V --vn vk_compute_spv).
// One shader, three passes chosen by a push constant: 0 moves the
// particles, 1 shades each pixel by its distance to every particle, 2
// darkens the edges (a vignette) in place.
#version 450
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer Particles { vec4 p[]; };
layout(std430, binding = 1) buffer Image { uint px[]; };
layout(push_constant) uniform Push { uint pass_; uint frame; uint count; uint width; uint height; } pc;

void main()
{
	uint i = gl_GlobalInvocationID.x;
	if (pc.pass_ == 0u) {
		if (i >= pc.count)
			return;
		vec4 q = p[i];
		if (pc.frame == 0u) {
			float f = float(i);
			q = vec4(fract(f * 0.618), fract(f * 0.377), 0.004 * (fract(f * 0.13) - 0.5),
				 0.006 * (fract(f * 0.71) - 0.5));
		}
		q.xy += q.zw;
		if (q.x < 0.0 || q.x > 1.0)
			q.z = -q.z;
		if (q.y < 0.0 || q.y > 1.0)
			q.w = -q.w;
		p[i] = q;
		return;
	}
	if (i >= pc.width * pc.height)
		return;
	vec2 uv = vec2(float(i % pc.width) / float(pc.width), float(i / pc.width) / float(pc.height));
	if (pc.pass_ == 1u) {
		float v = 0.0;
		for (uint k = 0u; k < pc.count; k++) {
			vec2 d = (uv - p[k].xy) * vec2(float(pc.width) / float(pc.height), 1.0);
			v += 0.0003 / (dot(d, d) + 0.0003);
		}
		vec3 c = clamp(vec3(0.15, 0.18, 0.25) + v * vec3(0.9, 0.6, 0.3), 0.0, 1.0);
		px[i] = packUnorm4x8(vec4(c, 1.0));
	} else {
		vec2 d = uv - 0.5;
		vec4 c = unpackUnorm4x8(px[i]);
		px[i] = packUnorm4x8(vec4(c.rgb * (1.0 - dot(d, d)), 1.0));
	}
}
